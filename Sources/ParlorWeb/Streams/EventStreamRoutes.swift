import Logging
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorLive
import ServerSentEvents

public struct EventStreamRoutes: Sendable {
    public struct Dependencies: Sendable {
        let sessions: Sessions
        let live: EventHandler
        let encoder: StreamEncoder
        let accountStreams: AccountStreams
        /// Paces each page's list rows and badge (``RowPacer``); nil: every change at once.
        let pacer: RowPacer?
        /// Told of each page that opens and closes its stream, and whether it is visible (`page=<key>&visible=1`).
        let presence: PresenceReporter?
        let logger: Logger

        public init(
            sessions: Sessions, live: EventHandler, encoder: StreamEncoder, accountStreams: AccountStreams, pacer: RowPacer? = nil,
            presence: PresenceReporter? = nil, logger: Logger
        ) {
            self.presence = presence
            self.sessions = sessions
            self.live = live
            self.encoder = encoder
            self.accountStreams = accountStreams
            self.pacer = pacer
            self.logger = logger
        }
    }

    let dependencies: Dependencies

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    /// `GET /events?chat=42`: the live updates of one page.
    ///
    /// Every (re)connection first receives what the page shows now (chat list, unread badge, the open
    /// chat's messages) as `replace` updates, then each change. A page that was away, even across a
    /// restart of the server, is therefore brought up to date by replacing whole regions: nothing it
    /// missed stays missing, and nothing is appended twice.
    /// `watch=7,12,40`: the people whose presence dots the page shows (``PageSubscription/watched(_:)``).
    public func register(on router: inout Router) {
        router.get("/events") { [dependencies] request in
            guard let signedIn = try await dependencies.sessions.current(request) else {
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
                dependencies.logger.debug("page reconnected", metadata: [
                    "request": "\(request.id)",
                    "after": "\(position.map { dependencies.encoder.isThisRun($0) ? "this run" : "an earlier run" } ?? "an id Parlor did not write")",
                ])
            }
            let stream = EventStream(lastEventID: request.lastEventID)
            let streamed = StreamListener(stream: stream, encoder: dependencies.encoder)
            let listener: any Listener = dependencies.pacer.map { PacedListener(streamed, openChat: openChat, pacer: $0) } ?? streamed
            let registration: ListenerRegistration
            do {
                registration = try await dependencies.live.register(listener, for: PageSubscription(
                    viewer: signedIn.user.id, openChat: openChat, feedsOf: feedsOf, showsWindow: request.query["window"] == "1",
                    watching: PageSubscription.watched(request.query["watch"])
                ))
            } catch Refusal.notFound {
                // Not a member: the same answer as for a chat that does not exist.
                throw HTTPError(.notFound, "There is no such chat.")
            }
            // A page the script names (`page=`, its own random key) says whether it is visible; a page that names none
            // (a script from before, a client of its own) counts as visible while its stream is open.
            let user = signedIn.user.id
            let pageKey = request.query["page"].flatMap { VisiblePages.isPageKey($0) ? $0 : nil } ?? "stream-\(request.id)"
            if let presence = dependencies.presence {
                presence.opened(user, page: pageKey, visible: request.query["visible"] != "0", idle: request.query["idle"] == "1")
                stream.onClose {
                    registration.cancel()
                    presence.closed(user, page: pageKey)
                }
            } else {
                stream.onClose { registration.cancel() }
            }
            dependencies.accountStreams.add(stream, for: signedIn.user.id, session: signedIn.session.idHash)
            return .eventStream(stream)
        }
    }
}
