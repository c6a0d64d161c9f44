import ByteOutput
import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents
import Synchronization

/// Turns updates into event-stream bytes once, however many pages receive them. The event handler hands
/// the same few updates (the same rendered bytes) to every page of a variant, page after page, so
/// remembering the last few updates encoded makes the rest of that loop a lookup. Each update gets one
/// id: this run's start time, then a counter; a page that reconnects sends the last one as `Last-Event-ID`.
final class StreamEncoder: Sendable {
    /// More than the updates one event sends a page (a removal, a cell, a list item, a badge, a toast).
    static let remembered = 8

    private let run = String(Int64(Date().timeIntervalSince1970 * 1000), radix: 36)
    private let counter = Atomic<Int64>(0)
    /// The storages of recent updates' bytes, newest last; held so none is freed and its address reused.
    private let recent = Mutex<[(source: OutputBuffer.Storage, event: EncodedEvent)]>([])

    func encode(_ update: ScreenUpdate) -> EncodedEvent {
        let source = update.html.finishedStorage
        return recent.withLock { recent in
            if let known = recent.last(where: { $0.source === source }) { return known.event }
            let id = "\(run)-\(counter.add(1, ordering: .relaxed).newValue)"
            let event = ServerSentEvent(id: id, data: update.html.string).encoded
            if recent.count == Self.remembered { recent.removeFirst() }
            recent.append((source, event))
            return event
        }
    }
}

/// An open page, fed through its event stream.
final class StreamListener: Listener {
    let stream: EventStream
    let encoder: StreamEncoder

    init(stream: EventStream, encoder: StreamEncoder) {
        self.stream = stream
        self.encoder = encoder
    }

    func receive(_ update: ScreenUpdate) {
        stream.send(encoder.encode(update))
    }
}

extension ParlorApp {
    /// `GET /events?chat=42`: the live updates of one page.
    ///
    /// Every (re)connection first receives what the page shows now (chat list, unread badge, the open
    /// chat's messages) as `replace` updates, then each change. A page that was away, even across a
    /// restart of the server, is therefore brought up to date by replacing whole regions: nothing it
    /// missed stays missing, and nothing is appended twice.
    func registerEventStreamRoute(on router: inout Router) {
        router.get("/events") { [self] request in
            guard let signedIn = try await sessions.current(request) else {
                // The script reloads the page, which leads to sign-in; EventSource gives up on a 401.
                throw HTTPError(.unauthorized, "Sign in to receive live updates.")
            }
            var openChat: ChatID?
            if let raw = request.query["chat"] {
                guard let id = Int64(raw) else { throw HTTPError(.notFound, "There is no such chat.") }
                openChat = ChatID(id)
            }
            let stream = EventStream(lastEventID: request.lastEventID)
            let listener = StreamListener(stream: stream, encoder: streamEncoder)
            let registration: ListenerRegistration
            do {
                registration = try await handler.register(listener, for: PageSubscription(viewer: signedIn.user.id, openChat: openChat))
            } catch Refusal.notFound {
                // Not a member: the same answer as for a chat that does not exist.
                throw HTTPError(.notFound, "There is no such chat.")
            }
            stream.onClose { registration.cancel() }
            return .eventStream(stream)
        }
    }
}
