import Logging
import ParlorDomain
import PostgresNIO

/// Who may write messages into a chat: one transaction at a time, until it ends. Every transaction that
/// inserts messages takes its chats' locks before its first write, so none has a transaction id while it waits.
/// That is what keeps each chat's messages in the event log's order: the log is read in transaction-id order,
/// and a chat's next writer gets its id (and its messages theirs) only after the last one committed. A row lock
/// (`FOR UPDATE`) would not do: taking the first of several assigns the transaction id, and a writer could
/// then wait for another's chat while holding an older id than the one writing there.
enum ChatLocks {
    /// Takes the chats' locks, as a statement of the caller's transaction.
    static func lock(_ chats: Set<ChatID>, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.run("SELECT \(unescaped: taking) FROM unnest(\(keys(chats))) AS key", logger: logger)
    }

    /// What takes the locks of `keys(chats)` (bound as `key`), for a statement that takes them itself:
    /// in `WHERE (SELECT taking FROM unnest(keys) AS key) >= 0`, PostgreSQL evaluates it once, before the first
    /// row (a one-time filter), so before anything is written.
    static let taking = "count(pg_advisory_xact_lock(key))"

    /// Advisory locks' keys: the chats' ids negated (every id is positive; the migrations' key is not), in one
    /// order everywhere, so that writers of overlapping chats queue instead of deadlocking.
    static func keys(_ chats: Set<ChatID>) -> [Int64] {
        chats.map { -$0.rawValue }.sorted(by: >)
    }
}
