import Synchronization
@testable import MicroHTTP
@testable import ServerSentEvents

/// Keeps the event streams a test server opened, the way an application's listener
/// registry would, and counts the ones whose connection went away.
final class StreamHub: Sendable {
    private let streams = Mutex<[EventStream]>([])
    let closed = Counter()

    func add(_ stream: EventStream) {
        streams.withLock { $0.append(stream) }
        stream.onClose { [closed] in closed.increment() }
    }

    var all: [EventStream] { streams.withLock { $0 } }

    /// Sends one encoded event to every stream; returns how many still accept events.
    @discardableResult
    func publish(_ event: ServerSentEvent) -> Int {
        EventStream.broadcast(event.encoded, to: all)
    }

    /// The same, one `send` per stream.
    @discardableResult
    func publishOneByOne(_ event: ServerSentEvent) -> Int {
        let encoded = event.encoded
        return all.filter { $0.send(encoded) }.count
    }
}
