import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorLive

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
            // `feeds=42`: the feeds screen of chat 42.
            var feedsOf: ChatID?
            if let raw = request.query["feeds"] {
                guard let id = Int64(raw) else { throw HTTPError(.notFound, "There is no such chat.") }
                feedsOf = ChatID(id)
            }
            if let sent = request.lastEventID {
                // Every connection gets the whole state first, so the position only says what kind of return this is.
                let position = StreamPosition.parse(sent)
                logger.debug("page reconnected", metadata: [
                    "request": "\(request.id)",
                    "after": "\(position.map { streamEncoder.isThisRun($0) ? "this run" : "an earlier run" } ?? "an id Parlor did not write")",
                ])
            }
            let stream = EventStream(lastEventID: request.lastEventID)
            let listener = StreamListener(stream: stream, encoder: streamEncoder)
            let registration: ListenerRegistration
            do {
                registration = try await handler.register(listener, for: PageSubscription(viewer: signedIn.user.id, openChat: openChat, feedsOf: feedsOf))
            } catch Refusal.notFound {
                // Not a member: the same answer as for a chat that does not exist.
                throw HTTPError(.notFound, "There is no such chat.")
            }
            stream.onClose { registration.cancel() }
            accountStreams.add(stream, for: signedIn.user.id, session: signedIn.session.idHash)
            return .eventStream(stream)
        }
    }
}
