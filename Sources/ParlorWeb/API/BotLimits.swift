import MicroHTTP
import ParlorDomain

/// How much one bot's key may do in a minute, on each instance: messages (posts, photos, edits, reactions) and
/// direct chats opened. Past either, the API answers 429 with `Retry-After`, and /metrics counts the refusal.
public struct BotLimits: Hashable, Sendable {
    public var messagesPerMinute = 60
    public var directChatsPerMinute = 10

    public init(messagesPerMinute: Int = 60, directChatsPerMinute: Int = 10) {
        self.messagesPerMinute = messagesPerMinute
        self.directChatsPerMinute = directChatsPerMinute
    }
}

/// The budgets of every bot's key, by what a request does.
final class BotBudgets: Sendable {
    enum Kind: String, Sendable {
        case message
        case directChat = "direct_chat"
    }

    private let messages: RateBudget<UserID>
    private let directChats: RateBudget<UserID>
    private let refused: @Sendable (Kind) -> Void

    /// `refused` counts each refusal (for /metrics).
    init(_ limits: BotLimits, refused: @escaping @Sendable (Kind) -> Void) {
        messages = RateBudget(.perMinute(limits.messagesPerMinute))
        directChats = RateBudget(.perMinute(limits.directChatsPerMinute))
        self.refused = refused
    }

    /// Spends one `kind` of `bot`'s budget, or throws the API's 429 with how long to wait.
    func spend(_ kind: Kind, of bot: UserID) throws(BotAPIRoutes.Failure) {
        guard let wait = (kind == .message ? messages : directChats).spend(bot) else { return }
        refused(kind)
        let what = kind == .message ? "messages" : "direct chats"
        throw BotAPIRoutes.Failure(
            status: .tooManyRequests, message: "This bot has sent too many \(what) for now; try again in \(wait.wholeSecondsUp) s.",
            retryAfter: wait.wholeSecondsUp
        )
    }
}
