import Foundation
import GRDB
import ParlorDomain

// The account log: what another process on the same file (`parlor admin`) changed of sessions, passwords, roles
// and settings, for a running server to hear. Written in each change's transaction, read by the server when the
// writer connection's `data_version` says another connection committed (a check of shared memory, not the disk).

extension SQLiteChatStore {
    /// How long entries are kept: a server that was stopped longer reads its sessions afresh anyway.
    static let accountLogRetention: TimeInterval = 3_600

    /// Appends the entry of a stored account event, inside the caller's transaction.
    static func log(_ event: AccountEvent, _ db: Database, origin: Int64) throws {
        guard let entry = AccountLogEntry(event) else { return }
        try db.cachedStatement(sql: "INSERT INTO accountLog (origin, kind, ids, loggedAt) VALUES (?, ?, ?, ?)").execute(arguments: [
            origin, entry.kind, entry.ids.map(String.init).joined(separator: ","), Date().timeIntervalSince1970,
        ])
    }

    /// The account events other processes stored since the last call, oldest first; none (and no read of the log)
    /// while no other connection committed. Entries older than the retention go on the way.
    public func accountEventsFromOtherProcesses() async throws -> [AccountEvent] {
        let version = try await pool.writeWithoutTransaction { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
        let (after, known) = file.accountLogPosition.withLock { ($0.id, $0.dataVersion) }
        guard version != known else { return [] }
        let origin = file.origin
        let rows = try await pool.write { db in
            try db.execute(sql: "DELETE FROM accountLog WHERE loggedAt < ?", arguments: [Date().timeIntervalSince1970 - Self.accountLogRetention])
            return try Row.fetchAll(db, sql: "SELECT id, origin, kind, ids FROM accountLog WHERE id > ? ORDER BY id LIMIT 1000", arguments: [after])
                .map { row in (id: row[0] as Int64, origin: row[1] as Int64, kind: row[2] as String, ids: row[3] as String) }
        }
        let last = rows.last?.id ?? after
        // A full batch leaves the version unknown: the next call reads on.
        file.accountLogPosition.withLock { $0 = (last, rows.count == 1000 ? nil : version) }
        return rows.filter { $0.origin != origin }.compactMap { row in
            let ids = row.ids.split(separator: ",").compactMap { Int64($0) }
            return AccountLogEntry.event(kind: row.kind, ids: ids)
        }
    }
}
