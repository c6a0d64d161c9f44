import Testing
@testable import MicroHTTP
@testable import ServerSentEvents

/// The event stream's life without a socket: what it writes, when it suspends, when it wakes.
@Suite struct EventStreamStateTests {
    func fill(_ state: inout EventStreamState, capacity: Int = 64) -> (EventStreamState.Fill, String) {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let result = buffer.withUnsafeMutableBytes { state.fill($0) }
        if case .wrote(let count) = result { return (result, String(decoding: buffer[..<count], as: UTF8.self)) }
        return (result, "")
    }

    @Test func idleStreamSuspendsAndANewEventWakesIt() {
        var state = EventStreamState(queueLimit: 1024)
        #expect(fill(&state).0 == .suspend)
        #expect(state.isSuspended)
        #expect(state.enqueue(Array("data: a\n\n".utf8)) == .resume)
        #expect(!state.isSuspended)
        #expect(fill(&state).1 == "data: a\n\n")
        // A second event while not suspended needs no resume.
        #expect(state.enqueue(Array("data: b\n\n".utf8)) == .none)
    }

    @Test func eventsLargerThanTheBufferAreWrittenAcrossCalls() {
        var state = EventStreamState(queueLimit: 1024)
        let event = "data: " + String(repeating: "x", count: 100) + "\n\n"
        _ = state.enqueue(Array(event.utf8))
        _ = state.enqueue(Array("data: next\n\n".utf8))
        var written = ""
        for _ in 0..<10 {
            let (result, text) = fill(&state, capacity: 32)
            guard case .wrote = result else { break }
            written += text
        }
        #expect(written == event + "data: next\n\n")
        #expect(state.queuedBytes == 0)
    }

    @Test func heartbeatWritesACommentOnlyWhenNothingElseIsQueued() {
        var state = EventStreamState(queueLimit: 1024)
        #expect(fill(&state).0 == .suspend)
        #expect(state.heartbeat() == .resume)
        #expect(fill(&state).1 == ": ping\n\n")
        #expect(fill(&state).0 == .suspend)

        _ = state.heartbeat()
        _ = state.enqueue(Array("data: real\n\n".utf8))
        #expect(fill(&state).1 == "data: real\n\n")  // the event itself proves the stream alive
        #expect(fill(&state).0 == .suspend)
    }

    @Test func overflowDropsTheQueueAndEndsWithAnError() {
        var state = EventStreamState(queueLimit: 20)
        #expect(state.enqueue(Array("data: 123456\n\n".utf8)) == .none)
        #expect(state.phase == .open)
        _ = state.enqueue(Array("data: 123456\n\n".utf8))
        #expect(state.phase == .overflowed)
        #expect(state.queuedBytes == 0)
        #expect(fill(&state).0 == .endWithError)
        #expect(state.enqueue(Array("data: later\n\n".utf8)) == .none)
    }

    @Test func overflowWakesASuspendedStreamSoItCanEnd() {
        var state = EventStreamState(queueLimit: 10)
        _ = fill(&state)
        #expect(state.enqueue(Array("data: far too long\n\n".utf8)) == .resume)
        #expect(fill(&state).0 == .endWithError)
    }

    @Test func closingFlushesWhatIsQueuedThenEnds() {
        var state = EventStreamState(queueLimit: 1024)
        _ = fill(&state)
        _ = state.enqueue(Array("data: last\n\n".utf8))
        #expect(state.close() == .none)  // already woken by the enqueue
        #expect(fill(&state).1 == "data: last\n\n")
        #expect(fill(&state).0 == .endOfStream)
        #expect(state.enqueue(Array("data: too late\n\n".utf8)) == .none)
    }

    @Test func closingASuspendedStreamResumesIt() {
        var state = EventStreamState(queueLimit: 1024)
        _ = fill(&state)
        #expect(state.close() == .resume)
        #expect(fill(&state).0 == .endOfStream)
    }

    @Test func aReaderThatNeverCatchesUpKeepsOnlyWhatItHasNotRead() {
        var state = EventStreamState(queueLimit: 256 * 1024)
        let event = Array(repeating: UInt8(ascii: "x"), count: 1000)
        var read = 0
        for _ in 0..<2000 {  // 2 MB through a stream that always lags one event behind
            _ = state.enqueue(event)
            if case .wrote(let count) = fill(&state, capacity: 1000).0 { read += count }
            #expect(state.queuedBytes <= 1000)
            #expect(state.heldBytes <= 130 * 1024)
        }
        _ = state.enqueue(event)
        #expect(read == 2_000_000)
        #expect(state.queuedBytes == 1000)
        #expect(state.phase == .open)
    }

    @Test func preambleGoesBeforeEventsQueuedEarlier() {
        var state = EventStreamState(queueLimit: 1024)
        _ = state.enqueue(Array("data: replayed\n\n".utf8))
        state.start(preamble: Array("retry: 2000\n\n".utf8))
        #expect(fill(&state).1 == "retry: 2000\n\ndata: replayed\n\n")
    }

    @Test func finishedStreamNeverWakesAgain() {
        var state = EventStreamState(queueLimit: 1024)
        _ = fill(&state)
        state.finish()
        #expect(state.enqueue(Array("data: x\n\n".utf8)) == .none)
        #expect(state.heartbeat() == .none)
        #expect(state.close() == .none)
    }
}

/// Shared events: an idle stream keeps a ticket into the ring, and order holds whatever is mixed in.
@Suite struct SharedEventTests {
    func fill(_ state: inout EventStreamState, capacity: Int = 64) -> EventStreamState.Fill {
        var buffer = [UInt8](repeating: 0, count: capacity)
        return buffer.withUnsafeMutableBytes { state.fill($0) }
    }

    /// Everything the stream writes until it would suspend.
    func drain(_ state: inout EventStreamState, capacity: Int = 64) -> String {
        var written = ""
        for _ in 0..<100 {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let result = buffer.withUnsafeMutableBytes { state.fill($0) }
            guard case .wrote(let count) = result else { break }
            written += String(decoding: buffer[..<count], as: UTF8.self)
        }
        return written
    }

    func shared(_ text: String, in ring: EventRing) -> EncodedEvent {
        ring.share(EncodedEvent(bytes: Array(text.utf8)))
    }

    func started(_ ring: EventRing, limit: Int = 1024) -> EventStreamState {
        var state = EventStreamState(queueLimit: limit, ring: ring)
        state.start(preamble: [])
        _ = fill(&state)  // idle: suspended
        return state
    }

    @Test func anIdleStreamQueuesOnlyATicketAndReadsTheBytesFromTheRing() {
        let ring = EventRing(capacity: 8)
        var state = started(ring)
        let event = shared("data: " + String(repeating: "y", count: 100) + "\n\n", in: ring)
        #expect(state.enqueue(event) == .resume)
        #expect(state.heldBytes == 0, "nothing copied into the stream's own queue")
        #expect(state.queuedBytes == event.bytes.count)
        #expect(drain(&state, capacity: 40) == String(decoding: event.bytes, as: UTF8.self))
        #expect(state.queuedBytes == 0)
        #expect(fill(&state) == .suspend)
    }

    @Test func orderHoldsWhenSharedAndOwnEventsAreMixed() {
        let ring = EventRing(capacity: 8)
        var state = started(ring)
        _ = state.enqueue(shared("data: 1\n\n", in: ring))
        _ = state.enqueue(Array("data: 2\n\n".utf8))
        _ = state.enqueue(shared("data: 3\n\n", in: ring))  // not idle: copied behind 2
        #expect(drain(&state) == "data: 1\n\ndata: 2\n\ndata: 3\n\n")

        _ = state.enqueue(Array("data: 4\n\n".utf8))
        _ = state.enqueue(shared("data: 5\n\n", in: ring))
        #expect(drain(&state) == "data: 4\n\ndata: 5\n\n")
    }

    @Test func beforeThePreambleSharedEventsAreCopiedSoThePreambleGoesFirst() {
        let ring = EventRing(capacity: 8)
        var state = EventStreamState(queueLimit: 1024, ring: ring)
        _ = state.enqueue(shared("data: early\n\n", in: ring))
        state.start(preamble: Array("retry: 2000\n\n".utf8))
        #expect(drain(&state) == "retry: 2000\n\ndata: early\n\n")
    }

    @Test func aTicketWhoseSlotWasReusedEndsTheStreamLikeAnOverflow() {
        let ring = EventRing(capacity: 2)
        var state = started(ring)
        _ = state.enqueue(shared("data: old\n\n", in: ring))
        _ = ring.hold(Array("data: a\n\n".utf8))
        _ = ring.hold(Array("data: b\n\n".utf8))  // the old event's slot now holds this one
        #expect(fill(&state) == .endWithError)
        #expect(state.phase == .overflowed)
    }

    @Test func sharedEventsCountTowardsTheQueueLimit() {
        let ring = EventRing(capacity: 8)
        var state = started(ring, limit: 20)
        _ = state.enqueue(shared("data: 123456\n\n", in: ring))
        #expect(state.phase == .open)
        _ = state.enqueue(shared("data: 123456\n\n", in: ring))
        #expect(state.phase == .overflowed)
        #expect(fill(&state) == .endWithError)
    }

    @Test func sharingKeepsTheBytesAndEquality() {
        let ring = EventRing(capacity: 8)
        let event = ServerSentEvent(id: "7", data: "hi").encoded
        let shared = ring.share(event)
        #expect(shared.isShared && !event.isShared)
        #expect(shared == event)
        #expect(ring.share(shared).sharing?.ticket == shared.sharing?.ticket, "sharing twice holds the bytes once")
        let elsewhere = EventRing(capacity: 8).share(shared)
        #expect(elsewhere.sharing?.ring !== ring, "another ring holds its own copy")
    }

    @Test func anEventSharedInAnotherServersRingIsCopiedAndSurvivesThatRingLappingIt() {
        let mine = EventRing(capacity: 8)
        let theirs = EventRing(capacity: 1)
        var state = started(mine)
        let event = shared("data: theirs\n\n", in: theirs)
        _ = state.enqueue(event)
        #expect(state.heldBytes == event.bytes.count, "copied into the stream's own queue")
        _ = theirs.hold(Array("data: lap\n\n".utf8))  // the other server reuses the slot
        #expect(drain(&state) == "data: theirs\n\n")
        #expect(state.phase == .open)
    }

    @Test func aStreamNotYetAttachedToAServerCopiesSharedEvents() {
        var state = EventStreamState(queueLimit: 1024)
        state.start(preamble: [])
        let event = shared("data: early\n\n", in: EventRing(capacity: 1))
        _ = state.enqueue(event)
        #expect(state.heldBytes == event.bytes.count)
        #expect(drain(&state) == "data: early\n\n")
    }
}

@Suite struct ServerSentEventEncodingTests {
    func text(_ event: EncodedEvent) -> String { String(decoding: event.bytes, as: UTF8.self) }

    @Test func fieldsAreWrittenInOrder() {
        let event = ServerSentEvent(id: "42", event: "stream", data: "hello", retry: 3000)
        #expect(text(event.encoded) == "id: 42\nevent: stream\nretry: 3000\ndata: hello\n\n")
    }

    @Test func everyLineOfDataGetsItsOwnField() {
        let event = ServerSentEvent(data: "one\ntwo\r\nthree\rfour\n")
        #expect(text(event.encoded) == "data: one\ndata: two\ndata: three\ndata: four\ndata: \n\n")
    }

    @Test func idAndEventCannotBreakTheFrame() {
        let event = ServerSentEvent(id: "1\n\ndata: forged", event: "a\rb", data: "x")
        #expect(text(event.encoded) == "id: 1data: forged\nevent: ab\ndata: x\n\n")
    }

    @Test func commentsAreSingleLines() {
        #expect(text(ServerSentEvent.comment("hello\nworld")) == ": helloworld\n\n")
    }
}
