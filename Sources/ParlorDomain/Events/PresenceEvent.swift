/// What people are doing right now, shown live and never kept: who is typing in a chat.
public enum PresenceEvent: Hashable, Sendable {
    /// A page's script says its person started, or stopped, typing in a chat; the router checks it.
    case reportingTyping(TypingReport)
    /// A member is typing in the chat, or stopped: what the chat's open pages show.
    case typing(TypingReport)
    /// The report was not taken (not a member, a room too big to show who types, too many reports).
    case typingRefused(TypingReport, reason: Refusal)
}

/// One person typing, or no longer, in one chat.
public struct TypingReport: Hashable, Sendable {
    public let chatID: ChatID
    public let userID: UserID
    public let isTyping: Bool

    public init(chatID: ChatID, userID: UserID, isTyping: Bool) {
        self.chatID = chatID
        self.userID = userID
        self.isTyping = isTyping
    }
}

/// The rules of "is typing" (Zulip's and Campfire's): a page says "start" at most once every three seconds
/// while its person types, and "stop" when they send or clear the text; a name is shown for five seconds after
/// the last "start" (so it is gone within six of the last keystroke). Rooms of more than a hundred members show
/// nobody typing.
public enum Typing {
    public static let memberLimit = 100
    /// Least time between two "start"s of one person in one chat.
    public static let startInterval: Duration = .seconds(3)
    /// How long a name stays after the last "start".
    public static let shownFor: Duration = .seconds(5)
}
