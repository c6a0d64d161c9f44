import Foundation

/// What a person may do beyond chatting: an administrator runs the Parlor (who joins, who stays, which rooms).
public enum Role: String, Hashable, Sendable, CaseIterable {
    case member
    case administrator
}

/// Who may create an account: anyone who reaches the Parlor, or whoever holds its join link.
public enum SignUpPolicy: String, Hashable, Sendable, CaseIterable {
    case open
    case invitation
}

/// The Parlor's join link: `/join/{code}`. Rotating it makes a new code; the old one names nothing from then on.
public struct JoinLink: Hashable, Sendable {
    public let code: String
    public let createdAt: Date
    /// After this, the link lets nobody in.
    public let expiresAt: Date?
    /// How many accounts the link may create; nil: any number.
    public let usesLimit: Int?
    /// Accounts created through it so far.
    public let uses: Int

    public init(code: String, createdAt: Date, expiresAt: Date? = nil, usesLimit: Int? = nil, uses: Int = 0) {
        self.code = code
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usesLimit = usesLimit
        self.uses = uses
    }

    /// Why the link lets nobody in at `now`; nil while it does.
    public func refusal(at now: Date) -> Refusal? {
        if let expiresAt, now >= expiresAt { return .joinLinkExpired }
        if let usesLimit, uses >= usesLimit { return .joinLinkUsedUp }
        return nil
    }

    /// Whether `code` (from a URL: anything) could be a join code at all: what is looked up.
    public static func isPlausible(_ code: String) -> Bool {
        (1...codeLimit).contains(code.utf8.count) && code.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    static let codeLimit = 64
    /// The longest a link may stay open, and the most uses it may count: what an administrator may type.
    public static let maximumDays = 365
    public static let maximumUses = 10_000
}

/// What an administrator sets for the whole Parlor, kept in the database.
public struct ParlorSettings: Hashable, Sendable {
    public let signUpPolicy: SignUpPolicy
    /// Whether members may create rooms, or administrators only.
    public let onlyAdministratorsCreateRooms: Bool
    /// The current join link; nil until an administrator makes one.
    public let joinLink: JoinLink?
    /// Whether anyone (not a bot) has an account: a Parlor without is on its first run.
    public let hasPeople: Bool

    public init(signUpPolicy: SignUpPolicy, onlyAdministratorsCreateRooms: Bool = false, joinLink: JoinLink? = nil, hasPeople: Bool) {
        self.signUpPolicy = signUpPolicy
        self.onlyAdministratorsCreateRooms = onlyAdministratorsCreateRooms
        self.joinLink = joinLink
        self.hasPeople = hasPeople
    }
}

/// A person's account as the Administration page shows it.
public struct Account: Hashable, Sendable {
    public let user: User
    public let role: Role
    /// When an administrator deactivated it; nil for an active account.
    public let deactivatedAt: Date?

    public init(user: User, role: Role, deactivatedAt: Date? = nil) {
        self.user = user
        self.role = role
        self.deactivatedAt = deactivatedAt
    }

    public var isActive: Bool { deactivatedAt == nil }
    /// An administrator who can act as one now.
    public var isActiveAdministrator: Bool { isActive && role == .administrator }
}

/// A room as the Administration page lists it: never its messages.
public struct RoomListing: Hashable, Sendable {
    public let id: ChatID
    public let name: String
    public let kind: RoomKind
    public let memberCount: Int

    public init(id: ChatID, name: String, kind: RoomKind, memberCount: Int) {
        self.id = id
        self.name = name
        self.kind = kind
        self.memberCount = memberCount
    }
}

/// An administrator deactivates or reactivates someone's account.
public struct AccountChange: Hashable, Sendable {
    public let person: UserID
    public let by: UserID
    public let deactivating: Bool

    public init(person: UserID, by: UserID, deactivating: Bool) {
        self.person = person
        self.by = by
        self.deactivating = deactivating
    }
}

/// Stored: the account is deactivated (its sessions ended, out of every room) or active again (in every open room).
public struct AccountState: Hashable, Sendable {
    public let user: User
    public let isActive: Bool
    /// The rooms they left (deactivated) or joined (reactivated).
    public let rooms: [ChatID]

    public init(user: User, isActive: Bool, rooms: [ChatID]) {
        self.user = user
        self.isActive = isActive
        self.rooms = rooms
    }
}
