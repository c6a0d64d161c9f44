/// A stored ``AccountEvent`` as an event log keeps it: a kind and a few numbers, read back into the same event
/// on every instance without asking the store. The SQLite store writes it for other processes on the same file
/// (`parlor admin` beside a running server); the PostgreSQL store for every instance on the same database.
public struct AccountLogEntry: Hashable, Sendable {
    public let kind: String
    public let ids: [Int64]

    /// The entry of a stored account event; nil for a command or a refusal.
    public init?(_ event: AccountEvent) {
        switch event {
        case .signedIn(let user): (kind, ids) = ("account.signedIn", [user.rawValue])
        case .sessionsEnded(let ended): (kind, ids) = ("account.sessionsEnded", [ended.userID.rawValue, Int64(ended.count), ended.cause.rawValue])
        case .roleChanged(let person, let role): (kind, ids) = ("account.roleChanged", [person.rawValue, role == .administrator ? 1 : 0])
        case .settingsChanged: (kind, ids) = ("account.settingsChanged", [0])
        case .joinLinkReplaced: (kind, ids) = ("account.joinLinkReplaced", [0])
        case .botKeyReplaced(let bot): (kind, ids) = ("account.botKeyReplaced", [bot.rawValue])
        case .pushSubscriptionsChanged(let user): (kind, ids) = ("account.pushSubscriptionsChanged", [user.rawValue])
        case .preferencesChanged(let user, let preferences):
            (kind, ids) = ("account.preferencesChanged", [user.rawValue, preferences.isPrivate ? 1 : 0, preferences.appearsOffline ? 1 : 0])
        case .signingIn, .signingOut, .signingOutEverywhere, .changingPassword, .resettingPassword, .changingRole, .changingSettings,
             .replacingJoinLink, .replacingBotKey, .subscribingPush, .unsubscribingPush, .changingPreferences, .refused:
            return nil
        }
    }

    /// Whether `kind` is one of these entries' (the rest of a log is someone else's to read).
    public static func isAccountKind(_ kind: String) -> Bool { kind.hasPrefix("account.") }

    /// The event a row holds; nil for a kind or a shape this version does not know (a newer instance wrote it).
    public static func event(kind: String, ids: [Int64]) -> AccountEvent? {
        guard let first = ids.first else { return nil }
        func flag(_ index: Int) -> Bool? { ids.indices.contains(index) ? ids[index] == 1 : nil }
        switch kind {
        case "account.signedIn": return .signedIn(UserID(first))
        case "account.sessionsEnded":
            guard ids.count == 3, let cause = SessionsEnded.Cause(rawValue: ids[2]), (0...Int64(Int32.max)).contains(ids[1]) else { return nil }
            return .sessionsEnded(SessionsEnded(userID: UserID(first), count: Int(ids[1]), cause: cause))
        case "account.roleChanged":
            guard let administrator = flag(1) else { return nil }
            return .roleChanged(person: UserID(first), administrator ? .administrator : .member)
        case "account.settingsChanged": return .settingsChanged
        case "account.joinLinkReplaced": return .joinLinkReplaced
        case "account.botKeyReplaced": return .botKeyReplaced(UserID(first))
        case "account.pushSubscriptionsChanged": return .pushSubscriptionsChanged(UserID(first))
        case "account.preferencesChanged":
            guard let isPrivate = flag(1), let appearsOffline = flag(2) else { return nil }
            return .preferencesChanged(UserID(first), NotificationPreferences(isPrivate: isPrivate, appearsOffline: appearsOffline))
        default: return nil
        }
    }
}
