import Foundation

/// What happens to sign-in, sessions and the settings only their owner or an administrator sees: passwords,
/// roles, the Parlor's sign-up settings, join links, bot keys, push subscriptions and notification preferences.
/// A command goes through the router like any other change; its outcome is a stored event that every instance
/// hears (the event log carries it), so an ended session ends its streams everywhere. Outcomes carry ids and
/// small values, never a password hash, a session id or a key.
public enum AccountEvent: Hashable, Sendable {
    /// A person signed in: the session is stored.
    case signingIn(StoredSession)
    case signedIn(UserID)
    /// A browser signs out: the session with this id hash ends.
    case signingOut(sessionHash: String)
    /// Every session of a person ends but `keeping` (the browser that asked), if any.
    case signingOutEverywhere(UserID, keeping: String?)
    /// A person gives a new password (checked by the web layer): every other session ends.
    case changingPassword(PasswordChange)
    /// The operator gives an account a new password (`parlor admin reset-password`): every session ends.
    case resettingPassword(handle: String, passwordHash: String)
    /// Stored: sessions of `user` ended. Every instance closes the event streams of the sessions that are gone.
    case sessionsEnded(SessionsEnded)

    /// An administrator makes someone a member or an administrator.
    case changingRole(RoleChange)
    case roleChanged(person: UserID, Role)
    /// An administrator changes who may join or who may create rooms.
    case changingSettings(SettingsChange)
    case settingsChanged
    /// An administrator (nil: the operator) replaces the join link.
    case replacingJoinLink(JoinLink, by: UserID?)
    case joinLinkReplaced
    /// An administrator gives a bot a new key (the old one opens nothing from then on).
    case replacingBotKey(bot: UserID, keyHash: String, by: UserID)
    case botKeyReplaced(UserID)

    /// A browser subscribes to Web Push; past `limit` browsers, the person's oldest go.
    case subscribingPush(PushSubscription, limit: Int)
    /// A person removes one of their browsers, by id or by its endpoint.
    case unsubscribingPush(PushRemoval)
    case pushSubscriptionsChanged(UserID)
    /// A person changes what notifications say and whether they appear offline.
    case changingPreferences(UserID, NotificationPreferences)
    case preferencesChanged(UserID, NotificationPreferences)

    /// Any of the commands above, refused (the route knows which one it sent).
    case refused(Refusal)
}

/// A new password for a person, and the session that keeps going (the browser that changed it).
public struct PasswordChange: Hashable, Sendable {
    public let userID: UserID
    /// Argon2id, never the password.
    public let passwordHash: String
    public let keeping: String

    public init(userID: UserID, passwordHash: String, keeping: String) {
        self.userID = userID
        self.passwordHash = passwordHash
        self.keeping = keeping
    }
}

/// Sessions that ended, whose, and why.
public struct SessionsEnded: Hashable, Sendable {
    public enum Cause: Int64, Hashable, Sendable, CaseIterable {
        case signedOut = 1
        case signedOutEverywhere = 2
        case passwordChanged = 3
        case passwordReset = 4
    }

    public let userID: UserID
    /// How many ended.
    public let count: Int
    public let cause: Cause

    public init(userID: UserID, count: Int, cause: Cause) {
        self.userID = userID
        self.count = count
        self.cause = cause
    }
}

/// An administrator's choice of someone's role.
public struct RoleChange: Hashable, Sendable {
    public let person: UserID
    public let role: Role
    public let by: UserID

    public init(person: UserID, role: Role, by: UserID) {
        self.person = person
        self.role = role
        self.by = by
    }
}

/// New values of the Parlor's settings; nil keeps the old one.
public struct SettingsChange: Hashable, Sendable {
    public let signUpPolicy: SignUpPolicy?
    public let onlyAdministratorsCreateRooms: Bool?
    public let by: UserID

    public init(signUpPolicy: SignUpPolicy? = nil, onlyAdministratorsCreateRooms: Bool? = nil, by: UserID) {
        self.signUpPolicy = signUpPolicy
        self.onlyAdministratorsCreateRooms = onlyAdministratorsCreateRooms
        self.by = by
    }
}

/// Which of a person's browsers stops receiving pushes.
public struct PushRemoval: Hashable, Sendable {
    public enum Which: Hashable, Sendable {
        case id(Int64)
        case endpoint(String)
    }

    public let userID: UserID
    public let which: Which

    public init(userID: UserID, which: Which) {
        self.userID = userID
        self.which = which
    }
}
