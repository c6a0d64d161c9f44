import Foundation
import GRDB

/// What an operator does to the SQLite store besides serving from it.
public enum StoreMaintenance {
    public enum Failure: Error, CustomStringConvertible {
        case noDatabase(String)
        case targetExists(String)
        case failed(String)

        public var description: String {
            switch self {
            case .noDatabase(let path): "there is no database at \(path)"
            case .targetExists(let path): "\(path) exists already; choose a new file (a backup never overwrites)"
            case .failed(let why): why
            }
        }
    }

    /// Applies the migrations the store at `path` lacks (creating it when missing); answers their names.
    public static func migrate(path: String) throws(Failure) -> [String] {
        do {
            let pool = try DatabasePool(path: path)
            let before = try pool.read { db in try Migrations.migrator.appliedIdentifiers(db) }
            try Migrations.migrator.migrate(pool)
            let after = try pool.read { db in try Migrations.migrator.appliedIdentifiers(db) }
            return Migrations.migrator.migrations.filter { after.contains($0) && !before.contains($0) }
        } catch {
            throw .failed("migration failed: \(error)")
        }
    }

    /// A consistent copy of the store at `source` in a new file `target`, while Parlor may be writing to it:
    /// SQLite's online backup, in one step inside one read transaction (in WAL mode writers go on meanwhile),
    /// written under a temporary name, checked, flushed, then renamed. Answers the number of messages copied.
    public static func backup(from source: String, to target: String) throws(Failure) -> Int {
        let manager = FileManager.default
        guard manager.fileExists(atPath: source) else { throw .noDatabase(source) }
        guard !manager.fileExists(atPath: target) else { throw .targetExists(target) }
        let temporary = target + ".part-" + UUID().uuidString
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            let from = try DatabaseQueue(path: source, configuration: configuration)
            let to = try DatabaseQueue(path: temporary)
            try from.backup(to: to)
            let (check, messages) = try to.read { db in
                (try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "", try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message") ?? 0)
            }
            guard check == "ok" else { throw Failure.failed("the copy does not pass SQLite's integrity check: \(check)") }
            try to.close()
            try from.close()
            // The copy reaches the disk before it takes the name a person will trust.
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temporary))
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, target) == 0 else { throw Failure.failed("could not name the copy \(target): errno \(errno)") }
            return messages
        } catch let failure as Failure {
            try? manager.removeItem(atPath: temporary)
            throw failure
        } catch {
            try? manager.removeItem(atPath: temporary)
            throw .failed("backup failed: \(error)")
        }
    }
}
