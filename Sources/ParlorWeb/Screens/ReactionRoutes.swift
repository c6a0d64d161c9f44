import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

/// Reactions to messages. `POST /rooms/{id}/messages/{message}/reactions` (`reaction=👍`) gives the reaction, or
/// takes it back when the person gave it already: the script gets 204 (the change arrives on its stream like
/// everyone's) or the reason; a page without it, a 303 back to the message, or the choosing page again with the
/// reason where the reaction was typed. `GET …/react` is that page: quick picks, a field, who gave which.
public struct ReactionRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let events: EventRouter
        let store: any ChatReads

        public init(gate: SignInGate, pages: WebPages, events: EventRouter, store: any ChatReads) {
            self.gate = gate
            self.pages = pages
            self.events = events
            self.store = store
        }
    }

    let dependencies: Dependencies
    private var pages: WebPages { dependencies.pages }
    private var store: any ChatReads { dependencies.store }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        let gate = dependencies.gate
        router.get("/rooms/{id}/messages/{message}/react", gate.signedIn { [self] request, signedIn in
            let message = try await reactable(request, signedIn)
            return try await reactPage(message, signedIn, typed: "", error: nil, status: .ok)
        })
        router.post("/rooms/{id}/messages/{message}/reactions", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            try await toggle(request, signedIn)
        })
    }

    /// The message of the path, in the chat of the path, that the person may react to now; 404 otherwise.
    private func reactable(_ request: Request, _ signedIn: SignedIn) async throws -> Message {
        let chat = try ChatPages.chatID(request)
        guard let raw = request.parameters["message"], let id = Int64(raw), id > 0,
              let message = try await store.message(MessageID(id)), message.chatID == chat, !message.isDeleted, message.notice == nil,
              try await store.membership(chat, signedIn.user.id) != nil
        else { throw ChatPages.noSuchChat }
        return message
    }

    private func toggle(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let message = try await reactable(request, signedIn)
        let typed = request.form["reaction"] ?? ""
        let toggle = ReactionToggle(messageID: message.id, userID: signedIn.user.id, text: typed, at: pages.clock.now)
        switch await dependencies.events.send(.reacting(toggle), requestID: request.id.description) {
        case .reacted:
            if request.isFromScript { return Response(status: .noContent) }
            return .redirect(to: pages.paths.chat(message.chatID) + "#message-\(message.id)")
        case .failedReacting(_, .notFound):
            throw ChatPages.noSuchChat
        case .failedReacting(_, let reason):
            if request.isFromScript { return .text(reason.message, status: reason.httpStatus) }
            return try await reactPage(message, signedIn, typed: typed, error: reason.message, status: reason.httpStatus)
        default:
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
    }

    private func reactPage(_ message: Message, _ signedIn: SignedIn, typed: String, error: String?, status: HTTPStatus) async throws -> Response {
        let context = pages.context(signedIn)
        let author: String
        if let feed = message.feed { author = feed.source } else { author = try await store.user(message.senderID)?.displayName ?? "Someone" }
        let layout = PageBuilder(context: context).layout(title: "React", unreadTotal: try await store.unreadTotal(for: signedIn.user.id))
        let reactions = try await store.reactions(to: [message.id])[message.id] ?? []
        // What was typed comes back only while it fits the field: a refused text of any length is not echoed whole.
        let kept = typed.count <= ReactionText.maximumLength * 4 ? typed : ""
        let model = ReactionsBuilder(viewer: signedIn.user.id, paths: pages.paths).reactPage(
            message, author: author, reactions: reactions, layout: layout, csrfToken: context.csrfToken, typed: kept, errorMessage: error
        )
        return pages.page(model, status: status)
    }
}
