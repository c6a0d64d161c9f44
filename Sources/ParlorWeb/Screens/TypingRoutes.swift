import MicroHTTP
import ParlorDomain
import ParlorEvents

/// `POST /rooms/{id}/typing` (`state=start` or `stop`): the page script says its person is typing in the chat, at
/// most every three seconds while they type, and stops when they send or clear the text. 204, or the refusal's
/// status (404 not a member, 429 too soon, 422 a room too big to show who types).
public struct TypingRoutes: Sendable {
    let gate: SignInGate
    let events: EventRouter

    public init(gate: SignInGate, events: EventRouter) {
        self.gate = gate
        self.events = events
    }

    public func register(on router: inout Router) {
        router.post("/rooms/{id}/typing", bodyLimit: 1024, gate.signedIn { [events] request, signedIn in
            let chat = try ChatPages.chatID(request)
            guard let state = request.form["state"], state == "start" || state == "stop" else {
                throw HTTPError(.badRequest, "Say start or stop.")
            }
            let report = TypingReport(chatID: chat, userID: signedIn.user.id, isTyping: state == "start")
            switch await events.send(.reportingTyping(report), requestID: request.id.description) {
            case .typing:
                return .text("", status: .noContent)
            case .typingRefused(_, let reason):
                throw HTTPError(reason.httpStatus, reason == .notFound ? "There is no such chat." : reason.message)
            default:
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
        })
    }
}
