import ByteOutput
import Foundation
import MicroHTTP
import ParlorEvents
import ParlorLive
import ServerSentEvents
import Synchronization

/// Turns updates into event-stream bytes, once for each update: the live pages call it as they render an
/// update, and every page of that variant sends the same bytes. Each update gets one id: this run's start
/// time, then a counter; a page that reconnects sends the last one as `Last-Event-ID`.
public final class StreamEncoder: UpdateEncoding {
    /// This server run, as the first part of every id.
    let run = String(Int64(Date().timeIntervalSince1970 * 1000), radix: 36)
    private let counter = Atomic<Int64>(0)
    /// The ring of the server the pages stream from.
    let ring: EventRing

    public init(ring: EventRing) {
        self.ring = ring
    }

    /// Whether `position` was written by this run: the page missed only updates this server still numbers.
    func isThisRun(_ position: StreamPosition) -> Bool { position.run == run }

    public func encode(_ update: ScreenUpdate) -> EncodedEvent { makeEvent(update) }

    /// The bytes an update was given when rendered; an update made without this encoder is encoded now.
    func event(for update: ScreenUpdate) -> EncodedEvent {
        update.encoded ?? makeEvent(update)
    }

    private func makeEvent(_ update: ScreenUpdate) -> EncodedEvent {
        let id = StreamPosition(run: run, sequence: counter.add(1, ordering: .relaxed).newValue).id
        // Shared: held once by the server, so an idle page's stream queues only a ticket to it.
        return ring.share(ServerSentEvent(id: id, data: update.html.string).encoded)
    }
}
