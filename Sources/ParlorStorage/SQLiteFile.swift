import Foundation
import GRDB
import ParlorDomain
import Synchronization

/// One SQLite file as this process holds it, whatever reads it: the one pool (GRDB's rule: one per file, so one writer,
/// one group commit, one run of the migrations), the connection of small reads, the watcher of unrouted writes and
/// the account log's position. Every ``SQLiteChatStore`` on the file shares it.
final class SQLiteFile: Sendable {
    let path: String
    let pool: DatabasePool
    let sends: GroupCommit
    /// One read-only connection for ``SQLiteChatStore/readHere(_:)``.
    let quickReads: DatabaseQueue
    let unroutedWrites = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// This process among those that open the file: its own entries in the account log are not news to it.
    let origin = Int64.random(in: 1...Int64.max)
    /// How far this process has read the account log, and the writer connection's `data_version` then.
    let accountLogPosition: Mutex<(id: Int64, dataVersion: Int64?)>

    /// Readers of the pool: requests read through it, and the live pages when their own connections are all busy.
    static let readerCount = 10

    /// Opens (creating if needed) the file and brings its schema up to date; `searchProgress` hears the indexing of
    /// messages stored before search existed.
    init(path: String, searchProgress: ((Int, Int) -> Void)?) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Another process (a second instance at start-up, a backup) may hold the write lock briefly.
        configuration.busyMode = .timeout(5)
        // GRDB's default is five; they open as they are needed.
        configuration.maximumReaderCount = Self.readerCount
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Text a person deleted is overwritten with zeros on its page, not left in free space.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        self.path = path
        pool = try DatabasePool(path: path, configuration: configuration)
        try Migrations.migrator.migrate(pool)
        accountLogPosition = Mutex((try pool.read { db in try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(id), 0) FROM accountLog") } ?? 0, nil))
        try SQLiteChatStore.indexForSearch(pool, progress: searchProgress)
        sends = GroupCommit(pool: pool)
        quickReads = try DatabaseQueue(path: path, configuration: Self.readOnly)
    }

    /// How the connections outside the pool open: read-only, waiting briefly for a lock another process holds.
    static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        return configuration
    }

    /// `count` read-only connections of their own, taken without waiting.
    func readers(count: Int) throws -> ScreenReaders {
        try ScreenReaders(path: path, configuration: Self.readOnly, count: count)
    }
}
