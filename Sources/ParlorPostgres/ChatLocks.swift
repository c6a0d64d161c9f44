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
    /// Advisory locks, keyed by the chat's id negated (every id is positive; the migrations' key is not).
    static func lock(_ chats: Set<ChatID>, _ connection: PostgresConnection, _ logger: Logger) async throws {
        // In one order everywhere: writers of overlapping chats queue instead of deadlocking.
        let keys = chats.map { -$0.rawValue }.sorted(by: >)
        try await connection.run("SELECT count(pg_advisory_xact_lock(key)) FROM unnest(\(keys)) AS key", logger: logger)
    }
}
