import Foundation
import ParlorDomain
import PostgresNIO

// Password hashes and sessions, shared by every instance: a browser signed in on one is signed in on all.

extension PostgresChatStore {
    public func credential(handle: String) async throws -> Credential? {
        guard let row = try await database.rows("""
            SELECT \(unescaped: Columns.user), passwordHash, deactivatedAt IS NOT NULL FROM account
            WHERE lower(handle) = lower(\(handle)) AND passwordHash IS NOT NULL
            """).first else { return nil }
        return Credential(user: try User(row: row), passwordHash: try row.at(7), isDeactivated: try row.at(8, as: Bool.self))
    }

    public func createSession(_ session: StoredSession) async throws {
        try await database.write { [logger] connection in
            try await connection.run("""
                INSERT INTO session (idHash, userID, csrfToken, createdAt, expiresAt)
                VALUES (\(session.idHash), \(session.userID.rawValue), \(session.csrfToken), \(session.createdAt.timeIntervalSince1970),
                    \(session.expiresAt.timeIntervalSince1970))
                """, logger: logger)
            try await EventLogEntry.append(.signedIn(session.userID), connection, logger: logger)
        }
    }

    public func session(idHash: String, now: Date) async throws -> StoredSession? {
        try await database.rows("""
            SELECT idHash, userID, csrfToken, createdAt, expiresAt FROM session WHERE idHash = \(idHash) AND expiresAt > \(now.timeIntervalSince1970)
            """).first.map { try Self.session($0) }
    }

    public func liveSession(idHash: String, now: Date) async throws -> LiveSession? {
        guard let row = try await database.rows("""
            SELECT session.idHash, session.userID, session.csrfToken, session.createdAt, session.expiresAt, \(unescaped: Columns.user(in: "account"))
            FROM session JOIN account ON account.id = session.userID
            WHERE session.idHash = \(idHash) AND session.expiresAt > \(now.timeIntervalSince1970) AND account.deactivatedAt IS NULL
            """).first else { return nil }
        return LiveSession(session: try Self.session(row), user: try User(row: row, at: 5))
    }

    private static func session(_ row: PostgresRandomAccessRow) throws -> StoredSession {
        StoredSession(
            idHash: try row.at(0), userID: UserID(try row.at(1, as: Int64.self)), csrfToken: try row.at(2),
            createdAt: Date(timeIntervalSince1970: try row.at(3)), expiresAt: Date(timeIntervalSince1970: try row.at(4))
        )
    }

    public func changePassword(of user: UserID, to passwordHash: String, keeping idHash: String) async throws -> Int {
        try await database.write { [logger] connection in
            guard try await connection.row("""
                UPDATE account SET passwordHash = \(passwordHash) WHERE id = \(user.rawValue) AND passwordHash IS NOT NULL RETURNING id
                """, logger: logger) != nil
            else { throw Refusal.notFound }
            let ended = try await connection.rows(
                "DELETE FROM session WHERE userID = \(user.rawValue) AND idHash <> \(idHash) RETURNING 1", logger: logger
            ).count
            try await EventLogEntry.append(.sessionsEnded(SessionsEnded(userID: user, count: ended, cause: .passwordChanged)), connection, logger: logger)
            return ended
        }
    }

    public func deleteSession(idHash: String) async throws -> UserID? {
        try await database.write { [logger] connection in
            guard let row = try await connection.row("DELETE FROM session WHERE idHash = \(idHash) RETURNING userID", logger: logger) else { return nil }
            let user = UserID(try row.at(0, as: Int64.self))
            try await EventLogEntry.append(.sessionsEnded(SessionsEnded(userID: user, count: 1, cause: .signedOut)), connection, logger: logger)
            return user
        }
    }

    public func endSessions(of user: UserID, keeping idHash: String?) async throws -> Int {
        try await database.write { [logger] connection in
            let ended = try await connection.rows(
                "DELETE FROM session WHERE userID = \(user.rawValue) AND idHash IS DISTINCT FROM \(idHash) RETURNING 1", logger: logger
            ).count
            try await EventLogEntry.append(.sessionsEnded(SessionsEnded(userID: user, count: ended, cause: .signedOutEverywhere)), connection, logger: logger)
            return ended
        }
    }

    public func liveSessions(among idHashes: [String], now: Date) async throws -> Set<String> {
        guard !idHashes.isEmpty else { return [] }
        return Set(try await database.rows("""
            SELECT session.idHash FROM session JOIN account ON account.id = session.userID
            WHERE session.idHash = ANY(\(idHashes)) AND session.expiresAt > \(now.timeIntervalSince1970) AND account.deactivatedAt IS NULL
            """).map { try $0.at(0, as: String.self) })
    }
}

// Failed sign-ins, counted across instances.

extension PostgresChatStore: SignInFailureStore {
    public func signInFailures(of keys: [String], since: Date) async throws -> [String: [Date]] {
        let rows = try await database.rows("SELECT key, at FROM signInFailure WHERE key = ANY(\(keys)) AND at >= \(since.timeIntervalSince1970) ORDER BY at")
        var failures: [String: [Date]] = [:]
        for row in rows { failures[try row.at(0, as: String.self), default: []].append(Date(timeIntervalSince1970: try row.at(1))) }
        return failures
    }

    public func recordSignInFailure(keys: [String], at date: Date, forgetting: Date) async throws {
        try await database.write { [logger] connection in
            try await connection.run("DELETE FROM signInFailure WHERE key = ANY(\(keys)) AND at < \(forgetting.timeIntervalSince1970)", logger: logger)
            try await connection.run(
                "INSERT INTO signInFailure (key, at) SELECT key, \(date.timeIntervalSince1970) FROM unnest(\(keys)) AS key", logger: logger
            )
        }
    }

    public func forgetSignInFailures(of key: String) async throws {
        try await database.write { [logger] connection in
            try await connection.run("DELETE FROM signInFailure WHERE key = \(key)", logger: logger)
        }
    }
}
