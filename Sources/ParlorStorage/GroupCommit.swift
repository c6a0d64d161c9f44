import BoundedWork
import GRDB
import ParlorDomain

/// Stores messages from many senders in shared transactions: while one commit is being flushed to disk,
/// the sends that arrive wait and then go to disk together in the next. Each send is still refused alone
/// (all its checks run before it writes), and none is acknowledged before its commit is durable.
final class GroupCommit: Sendable {
    private let queue: BatchingQueue<OutgoingMessage, Message>

    init(pool: DatabasePool) {
        // At most 256 sends in one transaction, so one commit never holds the writer for long.
        queue = BatchingQueue(batchLimit: 256) { messages in await Self.store(messages, pool) }
    }

    func submit(_ message: OutgoingMessage) async throws -> Message {
        try await queue.submit(message)
    }

    /// One transaction for the batch; a refused send is refused alone, a failed transaction fails them all.
    private static func store(_ messages: [OutgoingMessage], _ pool: DatabasePool) async -> [Result<Message, any Error>] {
        do {
            return try await pool.write { db in
                let stored: [Result<Message, any Error>] = try messages.map { message in
                    do {
                        return .success(try Self.store(message, db))
                    } catch let refusal as Refusal {
                        return .failure(refusal)
                    }
                }
                try Self.indexForSearchWhenEnoughWait(db)
                return stored
            }
        } catch {
            // The transaction itself failed (disk full, I/O): nothing of this batch was stored.
            return Array(repeating: .failure(error), count: messages.count)
        }
    }

    /// Once this many messages wait for the search indexes, the send that finds them indexes them: FTS5 costs a
    /// third as much a message in a batch this size as one at a time.
    static let searchBatch: Int64 = 256

    private static func indexForSearchWhenEnoughWait(_ db: Database) throws {
        let waiting = try Int64.fetchOne(db.cachedStatement(sql: "SELECT (SELECT IFNULL(MAX(id), 0) FROM message) - doneThrough FROM searchIndex")) ?? 0
        if waiting >= searchBatch { try SQLiteChatStore.indexNewMessages(db, limit: 4 * searchBatch) }
    }

    /// Stores one message, or refuses it before writing anything: every check comes first, so a refused
    /// send leaves the shared transaction as it found it, with no savepoint needed. The statements are
    /// prepared once on the writer's connection and reused by every batch.
    private static func store(_ message: OutgoingMessage, _ db: Database) throws -> Message {
        let chat = message.chatID.rawValue, sender = message.senderID.rawValue
        if let existing = try db.cachedStatement(sql: "SELECT \(Columns.message) FROM message WHERE senderID = ? AND token = ?")
            .first(arguments: [sender, message.token], { Message($0, at: 0) })
        {
            return existing
        }
        guard try SQLiteChatStore.isMember(db, message.chatID, message.senderID) else { throw Refusal.notFound }
        if let replyTo = message.replyTo {
            let replyChat = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT chatID FROM message WHERE id = ?"), arguments: [replyTo.rawValue]
            )
            guard replyChat == chat else { throw Refusal.notFound }
        }
        let createdAt = message.createdAt.timeIntervalSince1970
        // The photo's row first, pending, in the same transaction: a message never names a missing image.
        var photo: MessagePhoto?
        if let new = message.photo {
            try db.cachedStatement(sql: "INSERT INTO image (ownerID, purpose, createdAt, state, original) VALUES (?, 'message', ?, 'pending', ?)")
                .execute(arguments: [sender, createdAt, new.original])
            photo = MessagePhoto(id: ImageID(db.lastInsertedRowID), state: .pending, width: new.width, height: new.height)
        }
        let named = NamedPeople(in: message.body)
        try db.cachedStatement(
            sql: """
                INSERT INTO message (chatID, senderID, body, createdAt, replyToID, token, photoID, photoState, photoWidth, photoHeight, mentions)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            chat, sender, message.body, createdAt, message.replyTo?.rawValue, message.token,
            photo?.id.rawValue, photo?.state.rawValue, photo?.width, photo?.height, named.stored,
        ])
        let id = db.lastInsertedRowID
        // Unread is a position: the chat's count moves, and the sender's own position with it (their message is not
        // unread for them). Three rows whatever the room's size, and one more for each person the message names.
        let everyone = named.everyone ? 1 : 0
        try db.cachedStatement(
            sql: "UPDATE chat SET lastMessageID = ?, lastActivity = MAX(lastActivity, ?), messageSeq = messageSeq + 1, everyoneSeq = everyoneSeq + ? WHERE id = ?"
        ).execute(arguments: [id, createdAt, everyone, chat])
        try db.cachedStatement(
            sql: "UPDATE member SET readSeq = readSeq + 1, everyoneReadSeq = everyoneReadSeq + ? WHERE chatID = ? AND userID = ?"
        ).execute(arguments: [everyone, chat, sender])
        if !named.everyone, !named.handles.isEmpty {
            try SQLiteChatStore.countMention(db, named.handles, in: message.chatID, from: message.senderID, by: 1)
        }
        return Message(
            id: MessageID(id), chatID: message.chatID, senderID: message.senderID, body: message.body,
            createdAt: message.createdAt, replyTo: message.replyTo, photo: photo
        )
    }
}
