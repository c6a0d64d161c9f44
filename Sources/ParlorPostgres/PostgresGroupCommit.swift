import Logging
import ParlorDomain
import PostgresNIO
import Synchronization

/// Stores messages from many senders in shared transactions, as the SQLite store does: while one commit is
/// on its way, the sends that arrive wait and go together in the next, with one event-log hint for all.
/// Each send is checked alone before it writes; none is acknowledged before its commit.
final class PostgresGroupCommit: Sendable {
    private struct Job {
        let message: OutgoingMessage
        let continuation: CheckedContinuation<Result<Message, any Error>, Never>
    }

    private struct Queue {
        var jobs: [Job] = []
        var isDraining = false
    }

    private let database: PostgresDatabase
    private let queue = Mutex(Queue())
    private let batchLimit = 256

    init(database: PostgresDatabase) {
        self.database = database
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
            var results = await store(jobs.map(\.message))
            // The shared transaction failed as a whole (a send with the same token committed meanwhile on another
            // instance, a lost connection): each send is tried again alone, so one cannot sink the others.
            if jobs.count > 1, results.allSatisfy({ if case .failure(let error) = $0 { !(error is Refusal) } else { false } }) {
                results = []
                for job in jobs { results += await store([job.message]) }
            }
            for (job, result) in zip(jobs, results) { job.continuation.resume(returning: result) }
        }
    }

    private func store(_ messages: [OutgoingMessage]) async -> [Result<Message, any Error>] {
        let logger = database.logger
        do {
            return try await database.write { connection in
                // The chats' rows first, in one order: writers of one chat on several instances queue here instead
                // of deadlocking over its row and its members'.
                let chats = Set(messages.map(\.chatID.rawValue)).sorted()
                try await connection.run("SELECT id FROM chat WHERE id = ANY(\(chats)) ORDER BY id FOR UPDATE", logger: logger)
                var results: [Result<Message, any Error>] = []
                for message in messages {
                    do {
                        results.append(.success(try await Self.store(message, connection, logger)))
                    } catch let refusal as Refusal {
                        results.append(.failure(refusal))
                    }
                }
                return results
            }
        } catch {
            if messages.count == 1, error.isUniqueViolation, let existing = try? await existing(messages[0]) {
                return [.success(existing)]
            }
            return Array(repeating: .failure(error), count: messages.count)
        }
    }

    /// The message stored before with this sender and token.
    private func existing(_ message: OutgoingMessage) async throws -> Message? {
        try await database.rows("""
            SELECT \(unescaped: Columns.message) FROM message WHERE senderID = \(message.senderID.rawValue) AND token = \(message.token)
            """).first.flatMap { try Message(row: $0) }
    }

    /// Stores one message, or refuses it before writing anything (every check comes first): two round trips,
    /// the checks in one statement and the writes in another.
    private static func store(_ message: OutgoingMessage, _ connection: PostgresConnection, _ logger: Logger) async throws -> Message {
        let chat = message.chatID.rawValue, sender = message.senderID.rawValue
        guard let checks = try await connection.row("""
            SELECT (SELECT id FROM message WHERE senderID = \(sender) AND token = \(message.token)),
                EXISTS (SELECT 1 FROM member WHERE chatID = \(chat) AND userID = \(sender)),
                (SELECT chatID FROM message WHERE id = \(message.replyTo?.rawValue))
            """, logger: logger) else { throw Refusal.unavailable }
        if let existing = try checks.at(0, as: Int64?.self) {
            guard let stored = try await PostgresChatStore.message(connection, MessageID(existing), logger) else { throw Refusal.unavailable }
            return stored
        }
        guard try checks.at(1, as: Bool.self) else { throw Refusal.notFound }
        if message.replyTo != nil, try checks.at(2, as: Int64?.self) != chat { throw Refusal.notFound }
        let createdAt = message.createdAt.timeIntervalSince1970
        var photo: MessagePhoto?
        if let new = message.photo {
            let row = try await connection.row("""
                INSERT INTO image (ownerID, purpose, createdAt, state, original) VALUES (\(sender), 'message', \(createdAt), 'pending', \(new.original))
                RETURNING id
                """, logger: logger)
            photo = MessagePhoto(id: ImageID(try row!.at(0, as: Int64.self)), state: .pending, width: new.width, height: new.height)
        }
        // The message, the chat's last message, the others' unread counts and the log entry, in one statement.
        let row = try await connection.row("""
            WITH stored AS (
                INSERT INTO message (chatID, senderID, body, createdAt, replyToID, token, photoID, photoState, photoWidth, photoHeight)
                VALUES (\(chat), \(sender), \(message.body), \(createdAt), \(message.replyTo?.rawValue), \(message.token), \(photo?.id.rawValue),
                    \(photo?.state.rawValue), \(photo.map { Int64($0.width) }), \(photo.map { Int64($0.height) }))
                RETURNING id),
            lastMessage AS (
                UPDATE chat SET lastMessageID = (SELECT id FROM stored), lastActivity = GREATEST(lastActivity, \(createdAt)) WHERE id = \(chat)),
            unread AS (
                UPDATE member SET unreadCount = unreadCount + 1 WHERE chatID = \(chat) AND userID <> \(sender)),
            logged AS (
                INSERT INTO eventLog (kind, ids, token) SELECT \(EventLogEntry.sentKind), ARRAY[id], \(message.token) FROM stored)
            SELECT id FROM stored
            """, logger: logger)
        let id = try row!.at(0, as: Int64.self)
        return Message(
            id: MessageID(id), chatID: message.chatID, senderID: message.senderID, body: message.body,
            createdAt: message.createdAt, replyTo: message.replyTo, photo: photo
        )
    }
}
