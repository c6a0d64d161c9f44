import Synchronization

/// Every event stream a server has open: heartbeats reach them all, and shutdown ends them.
final class EventStreamRegistry: Sendable {
    private let streams = EventStreamGroup()
    private let closing = Atomic<Bool>(false)
    /// Heartbeat ticks so far (tests count in heartbeats rather than seconds).
    let ticks = Atomic<Int>(0)

    var count: Int { streams.count }

    /// Registers a stream; if the server is already shutting down, the stream is closed at once.
    func add(_ stream: EventStream) {
        streams.add(stream)
        if closing.load(ordering: .acquiring) { stream.close() }
    }

    /// Wakes every stream with a heartbeat due: a fan-out to all of them, walked in the
    /// group's order as a publish is.
    func heartbeat() {
        ticks.add(1, ordering: .relaxed)
        streams.forEach { $0.heartbeat() }
    }

    /// Ends every stream after its queued events, and any stream registered later. Spread over `window`
    /// in ten steps: the pages of a fleet reconnect (to another instance) a few at a time, not all at once.
    func closeAll(spreadOver window: Duration = .zero) async {
        closing.store(true, ordering: .releasing)
        var all: [EventStream] = []
        streams.forEach { all.append($0) }
        guard window > .zero, all.count > 1 else {
            all.forEach { $0.close() }
            return
        }
        let steps = min(10, all.count)
        let size = (all.count + steps - 1) / steps
        for (index, start) in stride(from: 0, to: all.count, by: size).enumerated() {
            if index > 0 { try? await Task.sleep(for: window / steps) }
            all[start..<min(all.count, start + size)].forEach { $0.close() }
        }
    }
}
