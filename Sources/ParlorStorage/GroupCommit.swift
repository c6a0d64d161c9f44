import GRDB
import ParlorDomain
import Synchronization

/// Stores messages from many senders in shared transactions: while one commit is being flushed to disk,
/// the sends that arrive wait and then go to disk together in the next. Each send still succeeds or fails
/// alone (a savepoint each), and none is acknowledged before its commit is durable.
final class GroupCommit: Sendable {
    private struct Job {
        let message: OutgoingMessage
        let continuation: CheckedContinuation<Result<Message, any Error>, Never>
    }

    private struct Queue {
        var jobs: [Job] = []
        var isDraining = false
    }

    private let pool: DatabasePool
    private let queue = Mutex(Queue())
    /// The most sends one transaction takes, so one commit never holds the writer for long.
    private let batchLimit = 256

    init(pool: DatabasePool) {
        self.pool = pool
    }

    func submit(_ message: OutgoingMessage) async throws -> Message {
        let result = await withCheckedContinuation { continuation in
            let startsDraining = queue.withLock { queue in
                queue.jobs.append(Job(message: message, continuation: continuation))
                guard !queue.isDraining else { return false }
                queue.isDraining = true
                return true
            }
            if startsDraining { Task { await self.drain() } }
        }
        return try result.get()
    }

    private func drain() async {
        while true {
            let jobs: [Job] = queue.withLock { queue in
                let taken = Array(queue.jobs.prefix(batchLimit))
                queue.jobs.removeFirst(taken.count)
                if taken.isEmpty { queue.isDraining = false }
                return taken
            }
            if jobs.isEmpty { return }
            let messages = jobs.map(\.message)
            let results: [Result<Message, any Error>]
            do {
                results = try await pool.write { db in
                    try messages.map { message in
                        var stored: Result<Message, any Error> = .failure(Refusal.notFound)
                        try db.inSavepoint {
                            do {
                                stored = .success(try Self.store(message, db))
                                return .commit
                            } catch let refusal as Refusal {
                                stored = .failure(refusal)
                                return .rollback
                            }
                        }
                        return stored
                    }
                }
            } catch {
                // The transaction itself failed (disk full, I/O): nothing of this batch was stored.
                results = Array(repeating: .failure(error), count: jobs.count)
            }
            for (job, result) in zip(jobs, results) { job.continuation.resume(returning: result) }
        }
    }

    private static func store(_ message: OutgoingMessage, _ db: Database) throws -> Message {
        if let row = try Row.fetchOne(
            db, sql: "SELECT \(Columns.message) FROM message WHERE senderID = ? AND token = ?",
            arguments: [message.senderID.rawValue, message.token]
        ), let existing = Message(row: row) {
            return existing
        }
        guard try SQLiteChatStore.isMember(db, message.chatID, message.senderID) else { throw Refusal.notFound }
        if let replyTo = message.replyTo {
            let chat = try Int64.fetchOne(db, sql: "SELECT chatID FROM message WHERE id = ?", arguments: [replyTo.rawValue])
            guard chat == message.chatID.rawValue else { throw Refusal.notFound }
        }
        try db.execute(
            sql: "INSERT INTO message (chatID, senderID, body, createdAt, replyToID, token) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                message.chatID.rawValue, message.senderID.rawValue, message.body, message.createdAt.timeIntervalSince1970,
                message.replyTo?.rawValue, message.token,
            ]
        )
        let id = db.lastInsertedRowID
        try db.execute(
            sql: "UPDATE chat SET lastMessageID = ?, lastActivity = MAX(lastActivity, ?) WHERE id = ?",
            arguments: [id, message.createdAt.timeIntervalSince1970, message.chatID.rawValue]
        )
        try db.execute(
            sql: "UPDATE member SET unreadCount = unreadCount + 1 WHERE chatID = ? AND userID <> ?",
            arguments: [message.chatID.rawValue, message.senderID.rawValue]
        )
        return Message(
            id: MessageID(id), chatID: message.chatID, senderID: message.senderID, body: message.body,
            createdAt: message.createdAt, replyTo: message.replyTo
        )
    }
}
