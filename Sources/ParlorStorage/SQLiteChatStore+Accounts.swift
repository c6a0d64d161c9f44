import Foundation
import GRDB
import ParlorDomain

// Password hashes and sessions, in the same file as the chats so an account and its sessions go together.

extension SQLiteChatStore {
    public func credential(handle: String) async throws -> Credential? {
        try await read { db in
            try db.cachedStatement(sql: "SELECT \(Columns.user), passwordHash, deactivatedAt IS NOT NULL FROM user WHERE handle = ? AND passwordHash IS NOT NULL")
                .first(arguments: [handle]) { row in Credential(user: User(row, at: 0), passwordHash: row.string(7), isDeactivated: row.int64(8) != 0) }
        }
    }

    public func createSession(_ session: StoredSession) async throws {
        let origin = file.origin
        try await write { db in
            try db.cachedStatement(sql: "INSERT INTO session (idHash, userID, csrfToken, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)").execute(arguments: [
                session.idHash, session.userID.rawValue, session.csrfToken,
                session.createdAt.timeIntervalSince1970, session.expiresAt.timeIntervalSince1970,
            ])
            try Self.log(.signedIn(session.userID), db, origin: origin)
        }
    }

    public func session(idHash: String, now: Date) async throws -> StoredSession? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT idHash, userID, csrfToken, createdAt, expiresAt FROM session WHERE idHash = ? AND expiresAt > ?"),
                arguments: [idHash, now.timeIntervalSince1970]
            ).map { row in
                StoredSession(
                    idHash: row["idHash"], userID: UserID(row["userID"] as Int64), csrfToken: row["csrfToken"],
                    createdAt: Date(timeIntervalSince1970: row["createdAt"]), expiresAt: Date(timeIntervalSince1970: row["expiresAt"])
                )
            }
        }
    }

    /// Read on the caller's thread: one indexed row, asked on every signed-in request, costs less than the
    /// hops to a reader's queue and back (SQLite readers never wait for the writer).
    public func liveSession(idHash: String, now: Date) async throws -> LiveSession? {
        try liveSessionNow(idHash: idHash, now: now)
    }

    public func liveSessionNow(idHash: String, now: Date) throws -> LiveSession? {
        try readHere { db in
            var live: LiveSession?
            try db.cachedStatement(sql: """
                SELECT session.idHash, session.userID, session.csrfToken, session.createdAt, session.expiresAt, \(Columns.user(in: "user"))
                FROM session JOIN user ON user.id = session.userID
                WHERE session.idHash = ? AND session.expiresAt > ? AND user.deactivatedAt IS NULL
                """).forEachRow(arguments: [idHash, now.timeIntervalSince1970]) { row in
                let session = StoredSession(
                    idHash: row.string(0), userID: UserID(row.int64(1)), csrfToken: row.string(2), createdAt: row.date(3), expiresAt: row.date(4)
                )
                live = LiveSession(session: session, user: User(row, at: 5))
            }
            return live
        }
    }

    public func changePassword(of user: UserID, to passwordHash: String, keeping idHash: String) async throws -> Int {
        let origin = file.origin
        return try await write { db in
            try db.cachedStatement(sql: "UPDATE user SET passwordHash = ? WHERE id = ? AND passwordHash IS NOT NULL")
                .execute(arguments: [passwordHash, user.rawValue])
            guard db.changesCount == 1 else { throw Refusal.notFound }
            try db.cachedStatement(sql: "DELETE FROM session WHERE userID = ? AND idHash <> ?").execute(arguments: [user.rawValue, idHash])
            let ended = db.changesCount
            try Self.log(.sessionsEnded(SessionsEnded(userID: user, count: ended, cause: .passwordChanged)), db, origin: origin)
            return ended
        }
    }

    public func deleteSession(idHash: String) async throws -> UserID? {
        let origin = file.origin
        return try await write { db in
            guard let user = try Int64.fetchOne(db, sql: "DELETE FROM session WHERE idHash = ? RETURNING userID", arguments: [idHash]) else { return nil }
            try Self.log(.sessionsEnded(SessionsEnded(userID: UserID(user), count: 1, cause: .signedOut)), db, origin: origin)
            return UserID(user)
        }
    }

    public func endSessions(of user: UserID, keeping idHash: String?) async throws -> Int {
        let origin = file.origin
        return try await write { db in
            try db.execute(sql: "DELETE FROM session WHERE userID = ? AND idHash IS NOT ?", arguments: [user.rawValue, idHash])
            let ended = db.changesCount
            try Self.log(.sessionsEnded(SessionsEnded(userID: user, count: ended, cause: .signedOutEverywhere)), db, origin: origin)
            return ended
        }
    }

    public func liveSessions(among idHashes: [String], now: Date) async throws -> Set<String> {
        var live: Set<String> = []
        // In slices: SQLite takes a bounded number of arguments.
        for start in stride(from: 0, to: idHashes.count, by: 500) {
            let slice = Array(idHashes[start..<min(start + 500, idHashes.count)])
            let found = try await read { db in
                try String.fetchAll(db, sql: """
                    SELECT session.idHash FROM session JOIN user ON user.id = session.userID
                    WHERE session.idHash IN (\(databaseQuestionMarks(count: slice.count))) AND session.expiresAt > ? AND user.deactivatedAt IS NULL
                    """, arguments: StatementArguments(slice) + [now.timeIntervalSince1970])
            }
            live.formUnion(found)
        }
        return live
    }
}
