import Foundation
import GRDB
import ParlorDomain
import Synchronization

/// The ``ChatStore`` Parlor uses by default: one SQLite file in WAL mode, with foreign keys, and every
/// acknowledged write on disk (`synchronous = FULL`). Sends from many people at once share one commit
/// (see ``GroupCommit``), so durability does not cost one disk flush per message.
public final class SQLiteChatStore: ChatStore, AccountStore, ImageStore, ImmediateReads {
    let file: SQLiteFile
    /// Read-only connections for whole screens read on the caller's thread (``readNowOrInPool(_:)``).
    let screenReaders: ScreenReaders
    /// Whether every read takes one of ``screenReaders`` when one is free, as the live pages' store does.
    private let readsOnItsOwnConnections: Bool

    var pool: DatabasePool { file.pool }

    /// Opens (creating if needed) the store at `path` and brings its schema up to date. Messages stored before
    /// search existed are indexed now, in batches, before anything else writes (`searchProgress` hears how far:
    /// messages indexed, of how many). Nothing else is read at start-up: history stays on disk until a page asks.
    public convenience init(path: String, searchProgress: ((Int, Int) -> Void)? = nil) throws {
        try self.init(file: SQLiteFile(path: path, searchProgress: searchProgress), readsOnItsOwnConnections: false)
    }

    private init(file: SQLiteFile, readsOnItsOwnConnections: Bool) throws {
        self.file = file
        self.readsOnItsOwnConnections = readsOnItsOwnConnections
        screenReaders = try file.readers(count: max(2, ProcessInfo.processInfo.activeProcessorCount))
    }

    /// The same file for the live pages: one pool, one writer and one group commit with this store, but reads on
    /// read-only connections of its own while one is free (else through the pool). The pool hands its readers out
    /// one at a time from one serial queue, so when the live pages read through the requests' pool, a crowd of
    /// requests held every page's update behind theirs, and the sends behind the updates (measured with
    /// `Benchmarks/send`: sends a fifth slower, their POST p99 doubled).
    public func forLivePages() throws -> SQLiteChatStore {
        try SQLiteChatStore(file: file, readsOnItsOwnConnections: true)
    }

    /// A read transaction: through the pool, or for the live pages' store on a free connection of its own, on that
    /// connection's queue (reading on the caller's thread instead measured no faster, and it holds one of the
    /// cooperative threads, which the requests need too, for as long as the read takes).
    func read<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        if readsOnItsOwnConnections, let reader = screenReaders.take() {
            defer { screenReaders.give(reader) }
            return try await reader.connection.read(body)
        }
        return try await pool.read(body)
    }

    /// A read transaction on the calling thread when one of the screen connections is free, else through the
    /// pool. A page built from the store reads for about a hundred microseconds; the pool's `async` read hops
    /// to a reader's queue and back, and those wake-ups cost as much as the read (profiled: a fifth of a page's
    /// CPU in futex waits and wakes). Never waits for a connection: a busy moment takes the pool's way.
    func readNowOrInPool<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        if let reader = screenReaders.take() {
            defer { screenReaders.give(reader) }
            return try reader.read(.several, body)
        }
        return try await pool.read(body)
    }

    /// A write transaction through the pool, told to the watcher of unrouted writes when no router command asked for it.
    func write<Value: Sendable>(_ operation: String = #function, _ updates: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        noteUnrouted(operation)
        return try await pool.write(updates)
    }

    /// Tells the watcher, if any, of a write that went around the router.
    func noteUnrouted(_ operation: String = #function) {
        guard RouterCommand.current == nil, let watcher = file.unroutedWrites.withLock({ $0 }) else { return }
        watcher(operation)
    }

    /// From now on, `watcher` hears the name of every store operation that writes outside a router command: the web
    /// tests fail on any (nothing but the router writes; upkeep of derived data, such as the search index and the
    /// account log's trim, is not an operation of the store's protocols and is not told).
    public func watchUnroutedWrites(_ watcher: @escaping @Sendable (String) -> Void) {
        file.unroutedWrites.withLock { $0 = watcher }
    }

    /// A read on the calling thread, for small reads on the path of every request: GRDB's `async` read
    /// hops to a reader's queue and back, which costs more than the read. It goes through a connection of
    /// its own that nothing else uses, so it waits at most for another such read, never for the pool's
    /// readers (which may be waiting for the very threads a blocking read would hold) nor for the writer.
    /// Without a transaction: meant for one statement, which SQLite reads from one snapshot anyway.
    func readHere<Value>(_ read: (Database) throws -> Value) throws -> Value {
        try file.quickReads.unsafeRead(read)
    }

    // MARK: People

    public func createUser(_ user: NewUser, at date: Date) async throws -> User {
        do {
            return try await write { db in
                let role = try Self.admit(db, user, at: date)
                try db.cachedStatement(sql: "INSERT INTO user (handle, displayName, timeZone, locale, isBot, createdAt, passwordHash, role) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [
                    user.handle, user.displayName, user.timeZoneIdentifier, user.localeIdentifier, user.isBot,
                    date.timeIntervalSince1970, user.passwordHash, role.rawValue,
                ])
                let id = db.lastInsertedRowID
                if let bot = user.bot {
                    try db.execute(sql: "INSERT INTO botKey (userID, keyHash, webhookURL, createdAt) VALUES (?, ?, ?, ?)", arguments: [
                        id, bot.keyHash, bot.webhookURL, date.timeIntervalSince1970,
                    ])
                }
                _ = try Self.joinOpenRooms(db, UserID(id), at: date)
                return User(
                    id: UserID(id), handle: user.handle, displayName: user.displayName,
                    timeZoneIdentifier: user.timeZoneIdentifier, localeIdentifier: user.localeIdentifier, isBot: user.isBot
                )
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw Refusal.handleTaken(user.handle)
        }
    }

    public func user(_ id: UserID) async throws -> User? {
        try await read { db in try Self.user(db, id) }
    }

    static func user(_ db: Database, _ id: UserID) throws -> User? {
        var user: User?
        try db.cachedStatement(sql: "SELECT \(Columns.user) FROM user WHERE id = ?").forEachRow(arguments: [id.rawValue]) { user = User($0, at: 0) }
        return user
    }

    public func user(handle: String) async throws -> User? {
        try await read { db in
            try db.cachedStatement(sql: "SELECT \(Columns.user) FROM user WHERE handle = ? AND deactivatedAt IS NULL").first(arguments: [handle]) { User($0, at: 0) }
        }
    }

    public func users(matching prefix: String, excluding: UserID, limit: Int) async throws -> [User] {
        // LIKE is case-insensitive for ASCII; the prefix's own % and _ are escaped.
        let pattern = Self.likePrefix(prefix)
        return try await read { db in
            try db.cachedStatement(sql: """
                SELECT \(Columns.user) FROM user
                WHERE id <> ? AND deactivatedAt IS NULL AND (handle LIKE ? ESCAPE '\\' OR displayName LIKE ? ESCAPE '\\')
                ORDER BY handle LIMIT ?
                """).all(arguments: [excluding.rawValue, pattern, pattern, limit]) { User($0, at: 0) }
        }
    }

    public func updateProfile(_ change: ProfileChange) async throws -> User {
        try await write { db in
            let avatar = try change.avatar.map { image in try Self.insert(db, image) }
            try db.cachedStatement(sql: """
                UPDATE user SET displayName = IFNULL(?, displayName), timeZone = IFNULL(?, timeZone), locale = IFNULL(?, locale),
                    avatarID = CASE WHEN ? THEN NULL ELSE IFNULL(?, avatarID) END
                WHERE id = ?
                """).execute(arguments: [
                    change.displayName, change.timeZoneIdentifier, change.localeIdentifier, change.removesAvatar, avatar?.rawValue,
                    change.userID.rawValue,
                ])
            guard db.changesCount == 1, let user = try Self.user(db, change.userID) else { throw Refusal.notFound }
            return user
        }
    }

    // MARK: Chats

    public func createDirectChat(among people: [UserID], at date: Date) async throws -> Chat {
        let members = Array(Set(people)).sorted()
        guard members.count > 2 else { throw Refusal.notFound }
        let key = Chat.directKey(members)
        return try await write { db in
            if let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM chat WHERE pairKey = ?"), arguments: [key]) {
                throw Refusal.chatExists(ChatID(existing))
            }
            let known = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user WHERE id IN (\(members.map { String($0.rawValue) }.joined(separator: ",")))")
            guard known == members.count else { throw Refusal.notFound }
            try db.cachedStatement(sql: "INSERT INTO chat (pairKey, createdAt, lastActivity, memberCount) VALUES (?, ?, ?, ?)")
                .execute(arguments: [key, date.timeIntervalSince1970, date.timeIntervalSince1970, members.count])
            let chat = Chat(id: ChatID(db.lastInsertedRowID), members: members, createdAt: date)
            let insert = try db.cachedStatement(sql: "INSERT INTO member (chatID, userID, involvement, joinedAt) VALUES (?, ?, ?, ?)")
            for member in members {
                try insert.execute(arguments: [chat.id.rawValue, member.rawValue, Involvement.joining(.direct).rawValue, date.timeIntervalSince1970])
            }
            return chat
        }
    }

    public func createChat(between first: UserID, and second: UserID, at date: Date) async throws -> Chat {
        guard first != second else { throw Refusal.chatWithYourself }
        let members = [first, second].sorted()
        let pairKey = Chat.directKey(members)
        return try await write { db in
            if let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM chat WHERE pairKey = ?"), arguments: [pairKey]) {
                throw Refusal.chatExists(ChatID(existing))
            }
            let known = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM user WHERE id IN (?, ?)"), arguments: [members[0].rawValue, members[1].rawValue])
            guard known == 2 else { throw Refusal.notFound }
            try db.cachedStatement(sql: "INSERT INTO chat (pairKey, createdAt, lastActivity, memberCount) VALUES (?, ?, ?, 2)").execute(arguments: [pairKey, date.timeIntervalSince1970, date.timeIntervalSince1970])
            let chat = Chat(id: ChatID(db.lastInsertedRowID), members: members, createdAt: date)
            for member in members {
                try db.cachedStatement(sql: "INSERT INTO member (chatID, userID, involvement, joinedAt) VALUES (?, ?, ?, ?)").execute(arguments: [
                    chat.id.rawValue, member.rawValue, Involvement.joining(chat.kind).rawValue, date.timeIntervalSince1970,
                ])
            }
            return chat
        }
    }

    public func createRoom(_ room: NewRoom) async throws -> Chat {
        try await write { db in try Self.insert(db, room) }
    }

    public func createFirstRoom(_ room: NewRoom) async throws -> Chat? {
        try await write { db in
            guard try !(Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM chat WHERE kind = 'open')")) ?? false) else { return nil }
            return try Self.insert(db, room)
        }
    }

    /// A room and its members, in the caller's transaction.
    static func insert(_ db: Database, _ room: NewRoom) throws -> Chat {
        guard room.kind != .direct else { throw Refusal.notFound }
        let members: [UserID]
        if room.kind == .open {
            members = try Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM user WHERE deactivatedAt IS NULL")).map { UserID($0) }
        } else {
            members = room.closedMembers
            let known = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user WHERE id IN (\(members.map { String($0.rawValue) }.joined(separator: ",")))")
            guard known == members.count else { throw Refusal.notFound }
        }
        let date = room.createdAt.timeIntervalSince1970
        // Found by its id: the key is set once the id is known.
        try db.cachedStatement(sql: """
            INSERT INTO chat (pairKey, createdAt, lastActivity, kind, name, topic, memberCount) VALUES ('#', ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [date, date, room.kind.rawValue, room.name, room.topic, members.count])
        let id = db.lastInsertedRowID
        try db.cachedStatement(sql: "UPDATE chat SET pairKey = '#' || id WHERE id = ?").execute(arguments: [id])
        let insert = try db.cachedStatement(sql: "INSERT INTO member (chatID, userID, involvement, joinedAt) VALUES (?, ?, ?, ?)")
        for member in members {
            try insert.execute(arguments: [id, member.rawValue, Involvement.joining(room.kind).rawValue, date])
        }
        return Chat(id: ChatID(id), members: members, createdAt: room.createdAt, kind: room.kind, name: room.name, topic: room.topic)
    }

    public func chat(_ id: ChatID) async throws -> Chat? {
        try await read { db in try Self.chat(db, id) }
    }

    public func memberCount(of chat: ChatID) async throws -> Int? {
        try await read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT memberCount FROM chat WHERE id = ?"), arguments: [chat.rawValue])
        }
    }

    static func chat(_ db: Database, _ id: ChatID) throws -> Chat? {
        var found: (createdAt: Date, kind: RoomKind, name: String?, topic: String?)?
        try db.cachedStatement(sql: "SELECT createdAt, kind, name, topic FROM chat WHERE id = ?").forEachRow(arguments: [id.rawValue]) { row in
            found = (row.date(0), RoomKind(rawValue: row.string(1)) ?? .direct, row.stringOrNil(2), row.stringOrNil(3))
        }
        guard let found else { return nil }
        let members = try Int64.fetchAll(db.cachedStatement(sql: "SELECT userID FROM member WHERE chatID = ?"), arguments: [id.rawValue])
        return Chat(id: id, members: members.map { UserID($0) }, createdAt: found.createdAt, kind: found.kind, name: found.name, topic: found.topic)
    }

    public func chatList(for viewer: UserID) async throws -> [ChatSummary] {
        try await read { db in try Self.summaries(db, viewer: viewer, chat: nil) }
    }

    public func chatSummary(_ chat: ChatID, for viewer: UserID) async throws -> ChatSummary? {
        try await read { db in try Self.summaries(db, viewer: viewer, chat: chat).first }
    }

    /// The chat list in one query: each chat of the viewer with the other member, the last message
    /// (kept on the chat row) and the unread count (kept on the member row), newest activity first.
    /// With `chat`, that one row.
    /// The statements are prepared once per connection.
    static func summaries(_ db: Database, viewer: UserID, chat: ChatID?) throws -> [ChatSummary] {
        let statement = try db.cachedStatement(sql: chat == nil ? summariesSQL : summarySQL)
        var summaries: [ChatSummary] = []
        summaries.reserveCapacity(chat == nil ? 64 : 1)
        try statement.forEachRow(arguments: chat.map { [viewer.rawValue, $0.rawValue] } ?? [viewer.rawValue]) { row in
            let heading = ChatHeading(
                kind: RoomKind(rawValue: row.string(kindColumn)) ?? .direct, name: row.stringOrNil(kindColumn + 1),
                topic: row.stringOrNil(kindColumn + 2), memberCount: Int(row.int64(kindColumn + 3)), contact: User(optional: row, at: 3)
            )
            // A direct chat of two whose other member is gone is no row.
            if heading.kind == .direct, heading.memberCount == 2, heading.contact == nil { return }
            summaries.append(ChatSummary(
                chatID: ChatID(row.int64(0)),
                heading: heading,
                lastMessage: Message(row, at: 10),
                lastSenderName: row.stringOrNil(kindColumn + 4),
                unreadCount: Int(row.int64(2)),
                lastActivity: row.date(1),
                lastRead: row.int64OrNil(kindColumn - 1).flatMap { $0 > 0 ? MessageID($0) : nil },
                involvement: Involvement(rawValue: row.string(kindColumn + 5)), mentionCount: Int(row.int64(kindColumn + 6))
            ))
        }
        // Ordered here rather than by SQLite: its sorter copies every selected column of every row,
        // and took more than half of the query's time.
        return summaries.newestActivityFirst()
    }

    /// Where the chat's kind is, after the id, activity and count (0-2), the contact's 7 (from 3; NULL in a room),
    /// the last message's columns (from 10) and the read mark; the name, topic, member count and the last
    /// sender's name follow it.
    private static let kindColumn = 10 + Columns.messageCount + 1

    /// A room's name, or for a direct chat of more than two the names of the others (``Chat/othersShown``).
    private static let othersOrName = """
        CASE WHEN c.kind = 'direct' AND c.memberCount > 2 THEN (
            SELECT group_concat(n, ', ') FROM (
                SELECT ou.displayName AS n FROM member o JOIN user ou ON ou.id = o.userID
                WHERE o.chatID = c.id AND o.userID <> me.userID ORDER BY lower(ou.displayName) LIMIT \(Chat.othersShown)))
        ELSE c.name END
        """

    /// One row per membership: a room's other members are not joined (a room of 500 is one row, not 499);
    /// a direct chat of two names its other member.
    private static let summariesSelect = """
        SELECT c.id, c.lastActivity, \(unreadOfMember), \(Columns.user(in: "u")), \(Columns.message(in: "m")), me.lastReadMessageID,
            c.kind, \(othersOrName), c.topic, c.memberCount, s.displayName, me.involvement, \(mentionsOfMember)
        FROM member me
        JOIN chat c ON c.id = me.chatID
        LEFT JOIN user u ON u.id = (
            SELECT other.userID FROM member other
            WHERE c.kind = 'direct' AND c.memberCount = 2 AND other.chatID = me.chatID AND other.userID <> me.userID)
        LEFT JOIN message m ON m.id = c.lastMessageID
        LEFT JOIN user s ON s.id = m.senderID
        """
    private static let summariesSQL = summariesSelect + " WHERE me.userID = ?1"
    private static let summarySQL = summariesSelect + " WHERE me.userID = ?1 AND me.chatID = ?2"

    public func unreadTotal(for viewer: UserID) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT IFNULL(SUM(\(Self.badgeCount)), 0) FROM member me JOIN chat c ON c.id = me.chatID WHERE me.userID = ?"),
                arguments: [viewer.rawValue]
            ) ?? 0
        }
    }

    // MARK: Messages

    public func send(_ message: OutgoingMessage) async throws -> Message {
        noteUnrouted()
        return try await file.sends.submit(message)
    }

    /// The message, when `person` sent it: `notFound` unless they are a member of its chat (ids cannot be
    /// probed), `notYourMessage` when someone else sent it.
    static func ownMessage(_ db: Database, _ id: MessageID, of person: UserID) throws -> Message {
        guard let message = try db.cachedStatement(sql: """
                SELECT \(Columns.message) FROM message
                WHERE id = ? AND EXISTS (SELECT 1 FROM member WHERE member.chatID = message.chatID AND member.userID = ?)
                """).first(arguments: [id.rawValue, person.rawValue], { Message($0, at: 0) })
        else { throw Refusal.notFound }
        guard message.senderID == person, message.notice == nil else { throw Refusal.notYourMessage }
        return message
    }

    public func edit(_ edit: MessageEdit) async throws -> Message {
        try await write { db in
            let old = try Self.ownMessage(db, edit.messageID, of: edit.editorID)
            guard !old.isDeleted else { throw Refusal.messageDeleted }
            // A new text's link is read again; a card the sender removed stays removed.
            try db.cachedStatement(sql: """
                UPDATE message SET body = ?, editedAt = ?, \(Self.noCard) WHERE id = ?
                """).execute(arguments: [edit.body, edit.editedAt.timeIntervalSince1970, old.id.rawValue])
            try Self.dropCardPicture(db, of: old)
            return Message(
                id: old.id, chatID: old.chatID, senderID: old.senderID, body: edit.body, createdAt: old.createdAt,
                editedAt: edit.editedAt, replyTo: old.replyTo, photo: old.photo, preview: old.preview?.isRemoved == true ? .removed : nil
            )
        }
    }

    public func delete(_ deletion: MessageDeletion) async throws -> DeletedMessage {
        let deleted = try await write { db in
            let old = try Self.ownMessage(db, deletion.messageID, of: deletion.requesterID)
            guard !old.isDeleted else { return DeletedMessage(message: old, deletedNow: false) }
            try db.cachedStatement(sql: """
                UPDATE message SET body = '', deletedAt = ?, photoID = NULL, photoState = NULL, photoWidth = NULL, photoHeight = NULL, \(Self.noCard)
                WHERE id = ?
                """).execute(arguments: [deletion.deletedAt.timeIntervalSince1970, old.id.rawValue])
            try Self.dropCardPicture(db, of: old)
            // The photo goes with it.
            if let photo = old.photo {
                try Self.forget(db, image: photo.id)
            }
            try db.cachedStatement(sql: "DELETE FROM reaction WHERE messageID = ?").execute(arguments: [old.id.rawValue])
            // Whoever had not read it has one message fewer to read (their position moves past it, never past the
            // chat's count), and one mention fewer if it named them. Deletions are rare: this is the one write that
            // touches every member who had not read that far.
            let named = old.named
            try db.cachedStatement(sql: """
                UPDATE member SET readSeq = MIN(readSeq + 1, (SELECT messageSeq FROM chat WHERE id = ?1))
                WHERE chatID = ?1 AND userID <> ?2 AND IFNULL(lastReadMessageID, 0) < ?3
                """).execute(arguments: [old.chatID.rawValue, old.senderID.rawValue, old.id.rawValue])
            if named.everyone {
                // Counted by position for everyone; a reader whose @everyone count is already spent had it folded
                // into their own count by a read.
                try db.cachedStatement(sql: """
                    UPDATE member SET
                        mentionCount = CASE WHEN everyoneReadSeq < (SELECT everyoneSeq FROM chat WHERE id = ?1) THEN mentionCount
                            ELSE MAX(0, mentionCount - 1) END,
                        everyoneReadSeq = MIN(everyoneReadSeq + 1, (SELECT everyoneSeq FROM chat WHERE id = ?1))
                    WHERE chatID = ?1 AND userID <> ?2 AND IFNULL(lastReadMessageID, 0) < ?3
                    """).execute(arguments: [old.chatID.rawValue, old.senderID.rawValue, old.id.rawValue])
            } else if !named.handles.isEmpty {
                try Self.countMention(db, named.handles, in: old.chatID, from: old.senderID, by: -1, unreadBefore: old.id)
            }
            return DeletedMessage(message: old.deleted(at: deletion.deletedAt), deletedNow: true)
        }
        // Older copies of the page stay in the write-ahead log until it is copied back and emptied: done
        // now (deletions are rare), as far as readers allow; the next checkpoint finishes what they held up.
        if deleted.deletedNow {
            _ = try? await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        return deleted
    }

    public func message(_ id: MessageID) async throws -> Message? {
        try await read { db in try Self.message(db, id) }
    }

    static func message(_ db: Database, _ id: MessageID) throws -> Message? {
        var message: Message?
        try db.cachedStatement(sql: "SELECT \(Columns.message) FROM message WHERE id = ?").forEachRow(arguments: [id.rawValue]) { message = Message($0, at: 0) }
        return message
    }

    public func messages(in chat: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage {
        try await read { db in try Self.messages(db, chat, before: before, limit: limit) }
    }

    static func messages(_ db: Database, _ chat: ChatID, before: MessageID?, limit: Int) throws -> MessagePage {
        // Keyset pagination: one more than asked tells whether older ones exist.
        let limit = max(0, limit)
        var newestFirst: [Message] = []
        newestFirst.reserveCapacity(limit + 1)
        var rows = 0
        try db.cachedStatement(sql: """
            SELECT \(Columns.message) FROM message
            WHERE chatID = ? AND id < ? ORDER BY id DESC LIMIT ?
            """).forEachRow(arguments: [chat.rawValue, before?.rawValue ?? Int64.max, limit + 1]) { row in
            rows += 1
            if rows <= limit, let message = Message(row, at: 0) { newestFirst.append(message) }
        }
        return MessagePage(messages: newestFirst.reversed(), hasOlder: rows > limit)
    }

    public func messages(in chat: ChatID, after: MessageID, limit: Int) async throws -> MessagePage {
        let limit = max(0, limit)
        return try await read { db in
            var messages: [Message] = []
            var rows = 0
            try db.cachedStatement(sql: "SELECT \(Columns.message) FROM message WHERE chatID = ? AND id > ? ORDER BY id LIMIT ?")
                .forEachRow(arguments: [chat.rawValue, after.rawValue, limit + 1]) { row in
                    rows += 1
                    if rows <= limit, let message = Message(row, at: 0) { messages.append(message) }
                }
            let older = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM message WHERE chatID = ? AND id <= ?)", arguments: [chat.rawValue, after.rawValue]
            ) ?? false
            return MessagePage(messages: messages, hasOlder: older, hasNewer: rows > limit)
        }
    }

    public func markRead(_ report: ReadReport) async throws -> MessageID? {
        try await write { db in
            guard try Self.isMember(db, report.chatID, report.readerID) else { throw Refusal.notFound }
            try db.cachedStatement(sql: """
                UPDATE member SET lastReadMessageID = MAX(IFNULL(lastReadMessageID, 0),
                    IFNULL((SELECT MAX(id) FROM message WHERE chatID = ?1 AND id <= ?3), 0))
                WHERE chatID = ?1 AND userID = ?2
                """).execute(arguments: [report.chatID.rawValue, report.readerID.rawValue, report.upTo?.rawValue ?? Int64.max])
            // The position is the chat's count less what is still unread after the mark: usually the mark is the
            // newest message, and both counts look at no row.
            try db.cachedStatement(sql: """
                UPDATE member SET readSeq = (SELECT messageSeq FROM chat WHERE id = ?1) - (
                    SELECT COUNT(*) FROM message
                    WHERE message.chatID = ?1 AND message.id > IFNULL(member.lastReadMessageID, 0) AND message.senderID <> ?2
                        AND message.deletedAt IS NULL AND message.noticeKind IS NULL),
                    everyoneReadSeq = (SELECT everyoneSeq FROM chat WHERE id = ?1)
                WHERE chatID = ?1 AND userID = ?2
                """).execute(arguments: [report.chatID.rawValue, report.readerID.rawValue])
            try db.cachedStatement(sql: """
                UPDATE member SET mentionCount = (
                    SELECT COUNT(*) FROM message
                    WHERE message.chatID = ?1 AND message.id > IFNULL(member.lastReadMessageID, 0) AND message.senderID <> ?2
                        AND message.deletedAt IS NULL AND message.mentions IS NOT NULL
                        AND (instr(message.mentions, ' * ') > 0 OR instr(message.mentions, ' ' || lower((SELECT handle FROM user WHERE id = ?2)) || ' ') > 0))
                WHERE chatID = ?1 AND userID = ?2
                """).execute(arguments: [report.chatID.rawValue, report.readerID.rawValue])
            let mark = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT lastReadMessageID FROM member WHERE chatID = ? AND userID = ?"),
                arguments: [report.chatID.rawValue, report.readerID.rawValue]
            )
            return mark.flatMap { $0 > 0 ? MessageID($0) : nil }
        }
    }

    public func membership(_ chat: ChatID, _ user: UserID) async throws -> Membership? {
        try await read { db in try Self.membership(db, chat, user) }
    }

    public func setInvolvement(_ involvement: Involvement, in chat: ChatID, for user: UserID) async throws -> Membership {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE member SET involvement = ? WHERE chatID = ? AND userID = ?")
                .execute(arguments: [involvement.rawValue, chat.rawValue, user.rawValue])
            guard db.changesCount == 1, let membership = try Self.membership(db, chat, user) else { throw Refusal.notFound }
            return membership
        }
    }

    static func membership(_ db: Database, _ chat: ChatID, _ user: UserID) throws -> Membership? {
        var membership: Membership?
        try db.cachedStatement(sql: "SELECT lastReadMessageID, involvement, joinedAt FROM member WHERE chatID = ? AND userID = ?")
            .forEachRow(arguments: [chat.rawValue, user.rawValue]) { row in
                membership = Membership(
                    chatID: chat, userID: user, lastRead: row.int64OrNil(0).flatMap { $0 > 0 ? MessageID($0) : nil },
                    involvement: Involvement(rawValue: row.string(1)) ?? .everything, joinedAt: row.date(2)
                )
            }
        return membership
    }

    // MARK: Screens

    public func chatsScreen(for viewer: UserID, open chat: ChatID?, before: MessageID?, limit: Int) async throws -> ChatsScreen {
        try await readNowOrInPool { db in try Self.screen(db, viewer: viewer, open: chat, before: before, limit: limit) }
    }

    public func chatsScreenNow(for viewer: UserID, open chat: ChatID?, before: MessageID?, limit: Int) throws -> ChatsScreen? {
        guard let reader = screenReaders.take() else { return nil }
        defer { screenReaders.give(reader) }
        // The list alone is one statement.
        return try reader.read(chat == nil ? .one : .several) { db in try Self.screen(db, viewer: viewer, open: chat, before: before, limit: limit) }
    }

    /// The list, and the open chat's page with what it needs, in the caller's transaction.
    static func screen(_ db: Database, viewer: UserID, open chat: ChatID?, before: MessageID?, limit: Int) throws -> ChatsScreen {
        let summaries = try summaries(db, viewer: viewer, chat: nil)
        guard let chat, let conversation = try conversation(db, chat, viewer: viewer, before: before, limit: limit) else {
            return ChatsScreen(summaries: summaries, conversation: nil, viewerLastRead: nil)
        }
        return ChatsScreen(summaries: summaries, conversation: conversation, viewerLastRead: try membership(db, chat, viewer)?.lastRead)
    }

    public func conversation(_ chat: ChatID, viewer: UserID, before: MessageID?, limit: Int) async throws -> ConversationSnapshot? {
        try await read { db in try Self.conversation(db, chat, viewer: viewer, before: before, limit: limit) }
    }

    /// The same reads as the composed `ChatStore.conversation`, in the caller's transaction.
    static func conversation(_ db: Database, _ chat: ChatID, viewer: UserID, before: MessageID?, limit: Int) throws -> ConversationSnapshot? {
        guard let stored = try Self.chat(db, chat), stored.hasMember(viewer) else { return nil }
        let contactID = stored.contact(of: viewer)
        let contact = try contactID.flatMap { try Self.user(db, $0) }
        if contactID != nil, contact == nil { return nil }
        let page = try Self.messages(db, chat, before: before, limit: limit)
        let onPage = Set(page.messages.map(\.id))
        var quoted: [Message] = []
        for id in Set(page.messages.compactMap(\.replyTo)).sorted() where !onPage.contains(id) {
            if let message = try Self.message(db, id), message.chatID == chat { quoted.append(message) }
        }
        let people = try ConversationSnapshot.authors(of: page.messages, quoted).filter { $0 != contactID }.compactMap { try Self.user(db, $0) }
        return ConversationSnapshot(
            chatID: chat, heading: stored.heading(contact: contact, others: try Self.others(db, stored, viewer: viewer)), messages: page.messages,
            quoted: quoted, people: people,
            contactLastRead: try contactID.flatMap { try Self.membership(db, chat, $0)?.lastRead }, hasOlder: page.hasOlder,
            reactions: try Self.reactions(db, page.messages.map(\.id))
        )
    }

    /// A membership `me`'s unread count in its chat `c`, from their positions (migration "23-unread-positions").
    static let unreadOfMember = "MAX(0, c.messageSeq - me.readSeq)"
    /// Its unread mentions: those that name it, and the @everyone ones after its position.
    static let mentionsOfMember = "me.mentionCount + MAX(0, c.everyoneSeq - me.everyoneReadSeq)"

    /// What a member's badge counts, as they follow the chat (``ChatSummary/badgeCount``), in SQL, for `me` in `c`.
    static let badgeCount = "CASE me.involvement WHEN 'everything' THEN \(unreadOfMember) WHEN 'nothing' THEN 0 ELSE \(mentionsOfMember) END"

    /// Moves the mention count of the members with these `handles` (all but the sender; with `unreadBefore`, only
    /// those who had not read that far) by `step`: a row per person named. Handles go in as JSON (they are letters,
    /// digits and `_`). @everyone is counted by position instead.
    static func countMention(_ db: Database, _ handles: Set<String>, in chat: ChatID, from sender: UserID, by step: Int, unreadBefore: MessageID? = nil) throws {
        let handles = "[" + handles.sorted().map { "\"\($0)\"" }.joined(separator: ",") + "]"
        try db.cachedStatement(sql: """
            UPDATE member SET mentionCount = MAX(0, mentionCount + ?4)
            WHERE chatID = ?1 AND userID <> ?2 AND IFNULL(lastReadMessageID, 0) < ?5
                AND userID IN (SELECT id FROM user WHERE handle IN (SELECT value FROM json_each(?3)))
            """).execute(arguments: [chat.rawValue, sender.rawValue, handles, step, unreadBefore?.rawValue ?? Int64.max])
    }

    /// The names a direct chat of more than two is called by for `viewer`, in the caller's transaction.
    static func others(_ db: Database, _ chat: Chat, viewer: UserID) throws -> [String] {
        guard chat.kind == .direct, chat.members.count > 2 else { return [] }
        return try String.fetchAll(db.cachedStatement(sql: """
            SELECT u.displayName FROM member o JOIN user u ON u.id = o.userID WHERE o.chatID = ? AND o.userID <> ?
            ORDER BY lower(u.displayName) LIMIT ?
            """), arguments: [chat.id.rawValue, viewer.rawValue, Chat.othersShown])
    }

    static func isMember(_ db: Database, _ chat: ChatID, _ user: UserID) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM member WHERE chatID = ? AND userID = ?)"), arguments: [chat.rawValue, user.rawValue]
        ) ?? false
    }
}
