import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

/// `POST /rooms/{id}/messages/{message}/preview/remove`: the sender removes the card of the page their message links
/// to, for good (from the conversation's form, with their token); back to the message.
public struct PreviewRoutes: Sendable {
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

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.post("/rooms/{id}/messages/{message}/preview/remove", bodyLimit: 4 * 1024, dependencies.gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            guard let raw = request.parameters["message"], raw.utf8.count <= 16, let id = Int64(raw), id > 0,
                  let message = try await dependencies.store.message(MessageID(id)), message.chatID == chat,
                  try await dependencies.store.membership(chat, signedIn.user.id) != nil
            else { throw ChatPages.noSuchChat }
            let removal = PreviewRemoval(messageID: message.id, requesterID: signedIn.user.id)
            switch await dependencies.events.send(.removingPreview(removal), requestID: request.id.description) {
            case .previewed:
                return .redirect(to: dependencies.pages.paths.chat(chat) + "#message-\(message.id)")
            case .failedRemovingPreview(_, .notFound):
                throw HTTPError(.notFound, "That message has no preview to remove.")
            case .failedRemovingPreview(_, let reason):
                throw HTTPError(reason.httpStatus, reason == .notYourMessage ? "Only its sender removes a message's preview." : reason.message)
            default:
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
        })
    }
}
