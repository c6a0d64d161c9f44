/// What people are doing right now, shown live and never kept: who is typing in a chat, and who is around.
public enum PresenceEvent: Hashable, Sendable {
    /// An instance says a person's presence there changed (a page of theirs opened, closed, hid or idled).
    case reportingPresence(PresenceReport)
    /// What every instance's pages take from such a report.
    case presenceChanged(PresenceReport)
    /// An instance says again who is present there (every minute): a report from an instance that stopped
    /// saying so is forgotten.
    case refreshingPresence([PresenceReport])
    case presenceRefreshed([PresenceReport])
    /// A page's script says its person started, or stopped, typing in a chat; the router checks it.
    case reportingTyping(TypingReport)
    /// A member is typing in the chat, or stopped: what the chat's open pages show.
    case typing(TypingReport)
    /// The report was not taken (not a member, a room too big to show who types, too many reports).
    case typingRefused(TypingReport, reason: Refusal)
}

/// A person's presence on one instance (``LocalPresence``), and whether they chose to appear offline.
public struct PresenceReport: Hashable, Sendable {
    public let userID: UserID
    /// The instance that saw it (a number made at start).
    public let instance: Int64
    public let state: LocalPresence
    public let appearsOffline: Bool

    public init(userID: UserID, instance: Int64, state: LocalPresence, appearsOffline: Bool = false) {
        self.userID = userID
        self.instance = instance
        self.state = state
        self.appearsOffline = appearsOffline
    }
}

/// A person's presence as others see it: a dot on their avatar.
public enum PresenceState: String, Sendable, Hashable {
    /// A page of theirs is in front of them, in use.
    case active
    /// Pages open but hidden, or not used for five minutes; or gone less than a minute ago.
    case away
    /// No page open for a minute, or they chose to appear offline.
    case offline
}

/// How presence is told: idle after five minutes without a key or a click, offline a minute after the last
/// page closed (so a reload is not a departure).
public enum Presence {
    public static let idleAfter: Duration = .seconds(300)
    public static let offlineAfter: Duration = .seconds(60)
    /// How often an instance says again who is present there, and how long a report it did not renew counts.
    public static let refreshEvery: Duration = .seconds(60)
    public static let reportLifetime: Duration = .seconds(180)
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
