import Testing
@testable import MicroHTTP
@testable import ServerSentEvents

/// A group of streams without sockets: who is in it, in what order, and what a broadcast reaches.
@Suite struct EventStreamGroupTests {
    /// The group's streams in the order it walks them.
    func walked(_ group: EventStreamGroup) -> [ObjectIdentifier] {
        var order: [ObjectIdentifier] = []
        group.forEach { order.append(ObjectIdentifier($0)) }
        return order
    }

    @Test func walksStreamsInJoiningOrderAcrossRemovalsAndCloseUps() {
        let group = EventStreamGroup()
        let streams = (0..<100).map { _ in EventStream() }
        for stream in streams { group.add(stream) }
        // Every other one leaves, then a run at the start: enough holes to close them up.
        for (index, stream) in streams.enumerated() where index % 2 == 1 || index < 30 {
            group.remove(stream)
        }
        let latecomers = (0..<5).map { _ in EventStream() }
        for stream in latecomers { group.add(stream) }

        let expected = streams.enumerated().filter { $0.offset % 2 == 0 && $0.offset >= 30 }.map(\.element)
            + latecomers
        #expect(walked(group) == expected.map(ObjectIdentifier.init))
        #expect(group.count == expected.count)
    }

    @Test func aStreamLeavesWhenItsConnectionEnds() {
        let group = EventStreamGroup()
        let staying = EventStream()
        let leaving = EventStream()
        group.add(staying)
        group.add(leaving)
        leaving.finished()  // what libmicrohttpd's release of the response calls
        #expect(walked(group) == [ObjectIdentifier(staying)])

        // Added after its connection ended: it never stays.
        group.add(leaving)
        #expect(group.count == 1)
    }

    @Test func addingTwiceKeepsOneEntry() {
        let group = EventStreamGroup()
        let stream = EventStream()
        group.add(stream)
        group.add(stream)
        #expect(group.count == 1)
        #expect(group.broadcast(ServerSentEvent(data: "once").encoded) == 1)
    }

    @Test func broadcastReachesEveryStreamAndCountsTheOpenOnes() {
        let group = EventStreamGroup()
        let streams = (0..<10).map { _ in EventStream() }
        for stream in streams { group.add(stream) }
        streams[3].close()
        streams[7].close()
        #expect(group.broadcast(ServerSentEvent(id: "1", data: "hello").encoded) == 8)
        // A closing stream stays in the group until its connection ends; the open ones got the event.
        #expect(group.count == 10)
        for (index, stream) in streams.enumerated() {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { stream.fill($0) }
            let sent = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
            #expect(sent == (index == 3 || index == 7 ? "" : "id: 1\ndata: hello\n\n"), "stream \(index)")
        }
    }
}
