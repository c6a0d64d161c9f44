import ByteOutput
import Foundation
import MicroHTTP
import ParlorEvents
import Synchronization

/// Turns updates into event-stream bytes once, however many pages receive them. The event handler hands
/// the same few updates (the same rendered bytes) to every page of a variant, page after page, so
/// remembering the last few updates encoded makes the rest of that loop a lookup. Each update gets one
/// id: this run's start time, then a counter; a page that reconnects sends the last one as `Last-Event-ID`.
final class StreamEncoder: Sendable {
    /// More than the updates one event sends a page (a removal, a cell, a list item, a badge, a toast).
    static let remembered = 8

    /// This server run, as the first part of every id.
    let run = String(Int64(Date().timeIntervalSince1970 * 1000), radix: 36)
    private let counter = Atomic<Int64>(0)
    /// The storages of recent updates' bytes, newest last; held so none is freed and its address reused.
    private let recent = Mutex<[(source: OutputBuffer.Storage, event: EncodedEvent)]>([])

    /// Whether `position` was written by this run: the page missed only updates this server still numbers.
    func isThisRun(_ position: StreamPosition) -> Bool { position.run == run }

    func encode(_ update: ScreenUpdate) -> EncodedEvent {
        let source = update.html.finishedStorage
        return recent.withLock { recent in
            if let known = recent.last(where: { $0.source === source }) { return known.event }
            let id = StreamPosition(run: run, sequence: counter.add(1, ordering: .relaxed).newValue).id
            // Shared: held once by the server, so an idle page's stream queues only a ticket to it.
            let event = ServerSentEvent(id: id, data: update.html.string).encoded.shared()
            if recent.count == Self.remembered { recent.removeFirst() }
            recent.append((source, event))
            return event
        }
    }
}
