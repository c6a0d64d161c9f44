import Synchronization

/// Every event stream a server has open: heartbeats reach them all, and shutdown ends them.
final class EventStreamRegistry: Sendable {
    private let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
    private let closing = Atomic<Bool>(false)
    /// Heartbeat ticks so far (tests count in heartbeats rather than seconds).
    let ticks = Atomic<Int>(0)

    var count: Int { streams.withLock { $0.count } }

    /// Registers a stream; if the server is already shutting down, the stream is closed at once.
    func add(_ stream: EventStream) {
        let key = ObjectIdentifier(stream)
        streams.withLock { $0[key] = stream }
        stream.onClose { [weak self] in self?.remove(key) }
        if closing.load(ordering: .acquiring) { stream.close() }
    }

    private func remove(_ key: ObjectIdentifier) {
        _ = streams.withLock { $0.removeValue(forKey: key) }
    }

    /// Wakes every stream with a heartbeat due.
    func heartbeat() {
        ticks.add(1, ordering: .relaxed)
        for stream in snapshot() { stream.heartbeat() }
    }

    /// Ends every stream after its queued events, and any stream registered later.
    func closeAll() {
        closing.store(true, ordering: .releasing)
        for stream in snapshot() { stream.close() }
    }

    private func snapshot() -> [EventStream] { streams.withLock { Array($0.values) } }
}
