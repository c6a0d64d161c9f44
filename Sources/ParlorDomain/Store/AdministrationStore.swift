import Foundation

/// Where the Administration page's settings and accounts are kept: its reads (``AdministrationReads``) and its
/// writes (``AdministrationWrites``). Like ``AccountStore``, only the router writes it (``AccountEvent``, and
/// ``UserEvent/changingAccount(_:)`` for deactivation). Each method is one transaction, which logs its event for the
/// other instances and processes.
public protocol AdministrationStore: AdministrationReads, AdministrationWrites {}

/// Settings, accounts, rooms and bots, read: what the Administration page, sign-up and the bot API are given.
public protocol AdministrationReads: Sendable {
    func settings() async throws -> ParlorSettings
    func account(_ id: UserID) async throws -> Account?
    /// People (never bots) whose handle or display name starts with `prefix` (case-insensitive; all for ""),
    /// by handle.
    func accounts(matching prefix: String, limit: Int) async throws -> [Account]
    /// Every open and closed room, by name: no messages.
    func rooms(limit: Int) async throws -> [RoomListing]
    // Bots an administrator made (Parlor's own, with no key, are not among them)
    /// The bot whose key has this hash.
    func bot(keyHash: String) async throws -> Bot?
    func bot(_ id: UserID) async throws -> Bot?
    /// Every bot with a key, by handle.
    func bots() async throws -> [Bot]
}

/// Settings changed, roles set, accounts deactivated and reactivated, passwords reset, join links and bot keys
/// replaced: the event router's, through ``AdministrationStore``.
public protocol AdministrationWrites: Sendable {
    /// Keeps `policy` unless a policy is kept already (set once, for a new Parlor); answers the settings.
    func startSettings(signUpPolicy policy: SignUpPolicy) async throws -> ParlorSettings
    /// Changes the values given (nil keeps one); answers the settings as they are then.
    func changeSettings(signUpPolicy: SignUpPolicy?, onlyAdministratorsCreateRooms: Bool?) async throws -> ParlorSettings
    /// Replaces the join link (the old code lets nobody in from now on).
    func replaceJoinLink(_ link: JoinLink) async throws
    /// Makes `person` a member or an administrator; `lastAdministrator` when that would leave no active one,
    /// `notFound` for nobody (or a bot).
    func setRole(_ role: Role, of person: UserID) async throws -> Account
    /// Deactivates `person`: sessions ended, push subscriptions gone, out of every room (messages stay).
    /// `lastAdministrator` for the last active administrator; `notFound` for nobody, a bot, or one already deactivated.
    func deactivate(_ person: UserID, at date: Date) async throws -> AccountState
    /// Activates `person` again, a member of every open room (closed ones: when someone adds them again).
    /// `notFound` unless deactivated.
    func reactivate(_ person: UserID, at date: Date) async throws -> AccountState
    /// A new password hash for the account with `handle` (the operator's `reset-password`), ending all its sessions.
    /// Answers whose and how many ended; `notFound` for nobody (or a bot).
    func resetPassword(handle: String, to passwordHash: String) async throws -> SessionsEnded
    /// A new key for the bot (the old one opens nothing from then on); `notFound` for anyone else.
    func replaceBotKey(of bot: UserID, keyHash: String) async throws
}

extension AdministrationWrites {
    public func setSignUpPolicy(_ policy: SignUpPolicy) async throws {
        _ = try await changeSettings(signUpPolicy: policy, onlyAdministratorsCreateRooms: nil)
    }

    public func setOnlyAdministratorsCreateRooms(_ only: Bool) async throws {
        _ = try await changeSettings(signUpPolicy: nil, onlyAdministratorsCreateRooms: only)
    }
}
