import BoundedWork
import Logging
import ParlorDomain
import PostgresNIO

/// Stores messages from many senders in shared transactions, as the SQLite store does: while one commit is
/// on its way, the sends that arrive wait and go together in the next, with one event-log hint for all.
/// Each send is checked alone before it writes; none is acknowledged before its commit.
final class PostgresGroupCommit: Sendable {
    private let database: PostgresDatabase
    private let queue: BatchingQueue<OutgoingMessage, Message>

    init(database: PostgresDatabase) {
        self.database = database
        queue = BatchingQueue(batchLimit: 256) { messages in await Self.storeBatch(messages, database) }
    }

    func submit(_ message: OutgoingMessage) async throws -> Message {
        try await queue.submit(message)
    }

    private static func storeBatch(_ messages: [OutgoingMessage], _ database: PostgresDatabase) async -> [Result<Message, any Error>] {
        let results = await store(messages, database)
        // The shared transaction failed as a whole (a send with the same token committed meanwhile on another
        // instance, a lost connection): each send is tried again alone, so one cannot sink the others.
        guard messages.count > 1, results.allSatisfy({ if case .failure(let error) = $0 { !(error is Refusal) } else { false } }) else {
            return results
        }
        var alone: [Result<Message, any Error>] = []
        for message in messages { alone += await store([message], database) }
        return alone
    }

    private static func store(_ messages: [OutgoingMessage], _ database: PostgresDatabase) async -> [Result<Message, any Error>] {
        do {
            return try await store(messages, database, database.logger)
        } catch {
            if messages.count == 1, error.isUniqueViolation, let existing = try? await existing(messages[0], database) {
                return [.success(existing)]
            }
            return Array(repeating: .failure(error), count: messages.count)
        }
    }

    /// The message stored before with this sender and token.
    private static func existing(_ message: OutgoingMessage, _ database: PostgresDatabase) async throws -> Message? {
        try await database.rows("""
            SELECT \(unescaped: Columns.message) FROM message WHERE senderID = \(message.senderID.rawValue) AND token = \(message.token)
            """).first.flatMap { try Message(row: $0) }
    }

    /// Stores a batch in a fixed number of statements whatever its size: the checks of every send in one (before
    /// the write: members, chats and messages are never removed, and a token stored meanwhile by another instance
    /// fails the insert, after which each send is tried alone), then the messages without a photo (with their
    /// chats' locks, last message, unread counts and log entries) in one statement that is its own transaction,
    /// and the messages sent before under the same tokens. A refused send writes nothing. A batch with a photo
    /// is one transaction: the locks, the others' statement, then each photo's image row and message.
    private static func store(_ messages: [OutgoingMessage], _ database: PostgresDatabase, _ logger: Logger) async throws
        -> [Result<Message, any Error>]
    {
        let checks = try await database.rows("""
            SELECT t.ord, (SELECT id FROM message m WHERE m.senderID = t.sender AND m.token = t.token),
                EXISTS (SELECT 1 FROM member WHERE chatID = t.chat AND userID = t.sender),
                (SELECT chatID FROM message WHERE id = NULLIF(t.reply, 0))
            FROM unnest(\(messages.map(\.senderID.rawValue)), \(messages.map(\.token)), \(messages.map(\.chatID.rawValue)),
                \(messages.map { $0.replyTo?.rawValue ?? 0 })) WITH ORDINALITY AS t(sender, token, chat, reply, ord)
            ORDER BY t.ord
            """)
        var results = [Result<Message, any Error>?](repeating: nil, count: messages.count)
        var existing: [Int: Int64] = [:]
        var fresh: [Int] = []
        var photos: [Int] = []
        var firstOfToken: [String: Int] = [:]
        var repeated: [Int: Int] = [:]
        for (index, (message, row)) in zip(messages, checks).enumerated() {
            if let id = try row.at(1, as: Int64?.self) {
                existing[index] = id
            } else if try !row.at(2, as: Bool.self) || (message.replyTo != nil && (try row.at(3, as: Int64?.self)) != message.chatID.rawValue) {
                results[index] = .failure(Refusal.notFound)
            } else if let first = firstOfToken["\(message.senderID.rawValue) \(message.token)"] {
                repeated[index] = first
            } else {
                firstOfToken["\(message.senderID.rawValue) \(message.token)"] = index
                if message.photo != nil { photos.append(index) } else { fresh.append(index) }
            }
        }
        if photos.isEmpty, !fresh.isEmpty {
            // The usual batch: one statement, its own transaction, that takes the chats' locks before it writes.
            let stored = try await database.writeStatement { [fresh] connection in try await insert(fresh.map { messages[$0] }, connection, logger) }
            for (index, message) in zip(fresh, stored) { results[index] = .success(message) }
        } else if !photos.isEmpty {
            let written = try await database.write { [fresh, photos] connection in
                try await ChatLocks.lock(Set((fresh + photos).map { messages[$0].chatID }), connection, logger)
                var written: [Int: Message] = [:]
                if !fresh.isEmpty {
                    for (index, message) in zip(fresh, try await insert(fresh.map { messages[$0] }, connection, logger)) { written[index] = message }
                }
                for index in photos { written[index] = try await store(messages[index], connection, logger) }
                return written
            }
            for (index, message) in written { results[index] = .success(message) }
        }
        if !existing.isEmpty {
            let rows = try await database.rows("SELECT \(unescaped: Columns.message) FROM message WHERE id = ANY(\(Array(existing.values)))")
            let stored = Dictionary(try rows.compactMap { try Message(row: $0) }.map { ($0.id.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
            for (index, id) in existing { results[index] = stored[id].map { .success($0) } ?? .failure(Refusal.unavailable) }
        }
        for (index, first) in repeated { results[index] = results[first] }
        return results.map { $0 ?? .failure(Refusal.unavailable) }
    }

    /// Inserts checked messages without a photo, in their order, with their chats' last message, the others'
    /// unread counts and the log entries: one statement, which takes the chats' locks first (again, if the
    /// transaction holds them: they are counted, and all end with it).
    private static func insert(_ batch: [OutgoingMessage], _ connection: PostgresConnection, _ logger: Logger) async throws -> [Message] {
        let rows = try await connection.rows("""
            WITH new AS (
                SELECT * FROM unnest(\(batch.map(\.chatID.rawValue)), \(batch.map(\.senderID.rawValue)), \(batch.map(\.body)),
                    \(batch.map(\.createdAt.timeIntervalSince1970)), \(batch.map { $0.replyTo?.rawValue ?? 0 }), \(batch.map(\.token)),
                    \(batch.map { NamedPeople(in: $0.body).stored ?? "" }), \(batch.map { SearchText.searchable($0.body) }))
                    WITH ORDINALITY AS t(chatID, senderID, body, createdAt, replyTo, token, mentions, searchText, ord)),
            stored AS (
                INSERT INTO message (chatID, senderID, body, createdAt, replyToID, token, mentions, searchText)
                SELECT chatID, senderID, body, createdAt, NULLIF(replyTo, 0), token, NULLIF(mentions, ''), searchText FROM new
                WHERE (SELECT \(unescaped: ChatLocks.taking) FROM unnest(\(ChatLocks.keys(Set(batch.map(\.chatID))))) AS key) >= 0
                ORDER BY ord
                RETURNING id, chatID, senderID, token, createdAt, mentions),
            lastMessage AS (
                UPDATE chat SET lastMessageID = s.last, lastActivity = GREATEST(chat.lastActivity, s.at),
                    messageSeq = chat.messageSeq + s.count, everyoneSeq = chat.everyoneSeq + s.everyone
                FROM (SELECT chatID, max(id) AS last, max(createdAt) AS at, count(*) AS count,
                          count(*) FILTER (WHERE position(' * ' IN mentions) > 0) AS everyone
                      FROM stored GROUP BY chatID) s
                WHERE chat.id = s.chatID),
            positions AS (
                \(unescaped: positionsUpdate)),
            logged AS (
                INSERT INTO eventLog (kind, ids, token) SELECT \(EventLogEntry.sentKind), ARRAY[id], token FROM (SELECT * FROM stored ORDER BY id) o)
            SELECT id, senderID, token FROM stored
            """, logger: logger)
        var ids: [String: Int64] = [:]
        for row in rows { ids["\(try row.at(1, as: Int64.self)) \(try row.at(2, as: String.self))"] = try row.at(0, as: Int64.self) }
        return try batch.map { message in
            guard let id = ids["\(message.senderID.rawValue) \(message.token)"] else { throw Refusal.unavailable }
            return Message(
                id: MessageID(id), chatID: message.chatID, senderID: message.senderID, body: message.body,
                createdAt: message.createdAt, replyTo: message.replyTo
            )
        }
    }

    /// The memberships a batch of `stored` messages (id, chatID, senderID, mentions) moves, in one UPDATE (a row is
    /// updated once per statement): each sender's positions move past their own messages, and each person a message
    /// names by handle gets a mention. Unread is a position (migration "16-unread-positions"), so this is a row per
    /// sender and per person named, whatever the room's size; @everyone is counted on the chat.
    private static let positionsUpdate = """
        UPDATE member SET readSeq = member.readSeq + s.own, everyoneReadSeq = member.everyoneReadSeq + s.ownEveryone,
            mentionCount = member.mentionCount + s.mentioned
        FROM (SELECT chatID, userID, sum(own) AS own, sum(ownEveryone) AS ownEveryone, sum(mentioned) AS mentioned FROM (
                  SELECT chatID, senderID AS userID, 1 AS own,
                      CASE WHEN position(' * ' IN COALESCE(mentions, '')) > 0 THEN 1 ELSE 0 END AS ownEveryone, 0 AS mentioned
                  FROM stored
                  UNION ALL
                  SELECT stored.chatID, a.id, 0, 0, 1
                  FROM stored CROSS JOIN LATERAL unnest(string_to_array(btrim(stored.mentions), ' ')) AS h(handle)
                  JOIN account a ON lower(a.handle) = h.handle
                  WHERE position(' * ' IN stored.mentions) = 0 AND a.id <> stored.senderID) changes
              GROUP BY chatID, userID) s
        WHERE member.chatID = s.chatID AND member.userID = s.userID
        """

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
        let named = NamedPeople(in: message.body)
        let row = try await connection.row("""
            WITH stored AS (
                INSERT INTO message (
                    chatID, senderID, body, createdAt, replyToID, token, photoID, photoState, photoWidth, photoHeight, mentions, searchText)
                VALUES (\(chat), \(sender), \(message.body), \(createdAt), \(message.replyTo?.rawValue), \(message.token), \(photo?.id.rawValue),
                    \(photo?.state.rawValue), \(photo.map { Int64($0.width) }), \(photo.map { Int64($0.height) }), \(named.stored),
                    \(SearchText.searchable(message.body)))
                RETURNING id, chatID, senderID, mentions),
            lastMessage AS (
                UPDATE chat SET lastMessageID = (SELECT id FROM stored), lastActivity = GREATEST(lastActivity, \(createdAt)),
                    messageSeq = messageSeq + 1, everyoneSeq = everyoneSeq + \(named.everyone ? Int64(1) : 0)
                WHERE id = \(chat)),
            positions AS (
                \(unescaped: positionsUpdate)),
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
