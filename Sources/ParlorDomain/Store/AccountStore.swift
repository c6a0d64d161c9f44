import Foundation

/// Where Parlor keeps what signing in needs: password hashes and sessions. Kept apart from ``ChatStore``
/// because no screen shows it. The web front reads it (``SessionReads``); only the router writes it
/// (``AccountWrites``, through ``AccountEvent``), and each write logs its event for the other instances (PostgreSQL)
/// and processes (SQLite) in its transaction.
public protocol AccountStore: SessionReads, AccountWrites {}

/// Accounts and sessions, read: what signing in, the sign-in gate and the open streams' checks are given.
public protocol SessionReads: Sendable {
    /// The account with this (normalised) handle and its password hash; nil for unknown handles and bots.
    func credential(handle: String) async throws -> Credential?
    /// The session with this id hash, unless it has expired at `now`.
    func session(idHash: String, now: Date) async throws -> StoredSession?
    /// The live session with this id hash and its person, in one read.
    func liveSession(idHash: String, now: Date) async throws -> LiveSession?
    /// Which of `idHashes` name live sessions (unexpired at `now`, of an active account): what every open event
    /// stream is checked against.
    func liveSessions(among idHashes: [String], now: Date) async throws -> Set<String>
}

/// Sessions begun and ended, passwords changed: the event router's, through ``AccountStore``.
public protocol AccountWrites: Sendable {
    /// Stores a new session.
    func createSession(_ session: StoredSession) async throws
    /// Ends a session; answers whose it was (nil, and nothing changes, when it is already gone).
    func deleteSession(idHash: String) async throws -> UserID?
    /// Ends every session of `user` but `keeping` (if any); answers how many ended.
    func endSessions(of user: UserID, keeping idHash: String?) async throws -> Int
    /// Replaces the person's password hash and ends every other session of theirs, in one transaction:
    /// a browser that had the old password is signed out. Answers how many sessions ended.
    func changePassword(of user: UserID, to passwordHash: String, keeping idHash: String) async throws -> Int
}

/// An account's password hash.
public struct Credential: Sendable, Hashable {
    public let user: User
    /// Argon2id, in the PHC string format libsodium writes.
    public let passwordHash: String
    /// An administrator deactivated the account: it may not sign in (told so only after the right password).
    public let isDeactivated: Bool

    public init(user: User, passwordHash: String, isDeactivated: Bool = false) {
        self.user = user
        self.passwordHash = passwordHash
        self.isDeactivated = isDeactivated
    }
}

/// A signed-in browser. Only a hash of the session id is kept, so a copy of the database signs nobody in.
public struct StoredSession: Sendable, Hashable {
    public let idHash: String
    public let userID: UserID
    /// The token every form of this session posts back.
    public let csrfToken: String
    public let createdAt: Date
    public let expiresAt: Date

    public init(idHash: String, userID: UserID, csrfToken: String, createdAt: Date, expiresAt: Date) {
        self.idHash = idHash
        self.userID = userID
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
