import Foundation
import Logging
import ParlorDomain
import PostgresNIO

/// The store of several Parlor instances on one PostgreSQL server: the same protocols and the same
/// behaviour as the SQLite store, and each change's event appended to the event log in its transaction
/// (see ``PostgresEventBus``). Sends from many people share transactions as on SQLite (``PostgresGroupCommit``).
public final class PostgresChatStore: ChatStore, AccountStore, ImageStore {
    let database: PostgresDatabase
    let logger: Logger
    private let sends: PostgresGroupCommit
    /// Names this instance on what it holds: the feeds it leased.
    let instance = UUID().uuidString

    /// Uses `database` (run it meanwhile) and brings its schema up to date. Messages stored before search existed
    /// are indexed now, in batches (`searchProgress` hears how far: messages indexed, of how many).
    public init(database: PostgresDatabase, searchProgress: (@Sendable (Int, Int) -> Void)? = nil) async throws {
        self.database = database
        logger = database.logger
        try await PostgresMigrations.migrate(database)
        sends = PostgresGroupCommit(database: database)
        try await PostgresSearch.indexStoredMessages(database, progress: searchProgress)
    }

    /// Brings the schema of `database` up to date without opening a store; answers the migrations applied.
    public static func migrate(_ database: PostgresDatabase) async throws -> [String] {
        try await PostgresMigrations.migrate(database)
    }

    // MARK: People

    public func createUser(_ user: NewUser, at date: Date) async throws -> User {
        do {
            return try await database.write { [logger] connection in
                let role = try await Self.admit(connection, user, at: date, logger)
                let row = try await connection.row("""
                    INSERT INTO account (handle, displayName, timeZone, locale, isBot, createdAt, passwordHash, role)
                    VALUES (\(user.handle), \(user.displayName), \(user.timeZoneIdentifier), \(user.localeIdentifier), \(user.isBot),
                        \(date.timeIntervalSince1970), \(user.passwordHash), \(role.rawValue))
                    RETURNING id
                    """, logger: logger)
                let id = UserID(try row!.at(0, as: Int64.self))
                if let bot = user.bot {
                    try await connection.run("""
                        INSERT INTO botKey (userID, keyHash, webhookURL, createdAt)
                        VALUES (\(id.rawValue), \(bot.keyHash), \(bot.webhookURL), \(date.timeIntervalSince1970))
                        """, logger: logger)
                }
                _ = try await Self.joinOpenRooms(connection, id, at: date, logger)
                try await EventLogEntry.userSignedUp(id).append(connection, logger: logger)
                return User(
                    id: id, handle: user.handle, displayName: user.displayName, timeZoneIdentifier: user.timeZoneIdentifier,
                    localeIdentifier: user.localeIdentifier, isBot: user.isBot
                )
            }
        } catch where error.isUniqueViolation {
            throw Refusal.handleTaken(user.handle)
        }
    }

    public func user(_ id: UserID) async throws -> User? {
        try await database.single { [logger] connection in try await Self.user(connection, id, logger) }
    }

    static func user(_ connection: PostgresConnection, _ id: UserID, _ logger: Logger) async throws -> User? {
        try await connection.row("SELECT \(unescaped: Columns.user) FROM account WHERE id = \(id.rawValue)", logger: logger)
            .map { try User(row: $0) }
    }

    public func user(handle: String) async throws -> User? {
        try await database.rows(
            "SELECT \(unescaped: Columns.user) FROM account WHERE lower(handle) = lower(\(handle)) AND deactivatedAt IS NULL"
        ).first.map { try User(row: $0) }
    }

    public func users(matching prefix: String, excluding: UserID, limit: Int) async throws -> [User] {
        let pattern = Self.likePrefix(prefix)
        return try await database.rows("""
            SELECT \(unescaped: Columns.user) FROM account
            WHERE id <> \(excluding.rawValue) AND deactivatedAt IS NULL AND (handle ILIKE \(pattern) OR displayName ILIKE \(pattern))
            ORDER BY lower(handle) LIMIT \(max(0, limit))
            """).map { try User(row: $0) }
    }

    public func updateProfile(_ change: ProfileChange) async throws -> User {
        try await database.write { [logger] connection in
            var avatar: ImageID?
            if let image = change.avatar { avatar = try await Self.insert(connection, image, logger) }
            guard let row = try await connection.row("""
                UPDATE account SET displayName = COALESCE(\(change.displayName), displayName), timeZone = COALESCE(\(change.timeZoneIdentifier), timeZone),
                    locale = COALESCE(\(change.localeIdentifier), locale),
                    avatarID = CASE WHEN \(change.removesAvatar) THEN NULL ELSE COALESCE(\(avatar?.rawValue), avatarID) END
                WHERE id = \(change.userID.rawValue)
                RETURNING \(unescaped: Columns.user)
                """, logger: logger)
            else { throw Refusal.notFound }
            try await EventLogEntry.profileUpdated(change.userID).append(connection, logger: logger)
            return try User(row: row)
        }
    }

    // MARK: Chats

    public func createChat(between first: UserID, and second: UserID, at date: Date) async throws -> Chat {
        guard first != second else { throw Refusal.chatWithYourself }
        let members = [first, second].sorted()
        let pairKey = Chat.directKey(members)
        do {
            return try await database.write { [logger] connection in
                if let existing = try await connection.row("SELECT id FROM chat WHERE pairKey = \(pairKey)", logger: logger) {
                    throw Refusal.chatExists(ChatID(try existing.at(0, as: Int64.self)))
                }
                let known = try await connection.row(
                    "SELECT count(*) FROM account WHERE id IN (\(members[0].rawValue), \(members[1].rawValue))", logger: logger
                )
                guard try known?.at(0, as: Int64.self) == 2 else { throw Refusal.notFound }
                let row = try await connection.row("""
                    INSERT INTO chat (pairKey, createdAt, lastActivity, memberCount)
                    VALUES (\(pairKey), \(date.timeIntervalSince1970), \(date.timeIntervalSince1970), 2)
                    RETURNING id
                    """, logger: logger)
                let chat = Chat(id: ChatID(try row!.at(0, as: Int64.self)), members: members, createdAt: date)
                try await connection.run("""
                    INSERT INTO member (chatID, userID, involvement, joinedAt)
                    SELECT \(chat.id.rawValue), member, \(Involvement.joining(chat.kind).rawValue), \(date.timeIntervalSince1970)
                    FROM unnest(\(members.map(\.rawValue))::BIGINT[]) AS member
                    """, logger: logger)
                try await EventLogEntry.chatCreated(chat.id).append(connection, logger: logger)
                return chat
            }
        } catch where error.isUniqueViolation {
            // Another instance made the same pair's chat at the same moment.
            guard let existing = try await database.rows("SELECT id FROM chat WHERE pairKey = \(pairKey)").first else { throw error }
            throw Refusal.chatExists(ChatID(try existing.at(0, as: Int64.self)))
        }
    }

    public func createRoom(_ room: NewRoom) async throws -> Chat {
        try await database.write { [logger] connection in try await Self.insert(connection, room, logger) }
    }

    public func createFirstRoom(_ room: NewRoom) async throws -> Chat? {
        try await database.write { [logger] connection in
            // Two instances signing up their first people at once: one makes the room, the other sees it.
            try await connection.run("SELECT pg_advisory_xact_lock(7460202)", logger: logger)
            guard try await connection.row("SELECT 1 FROM chat WHERE kind = 'open' LIMIT 1", logger: logger) == nil else { return nil }
            return try await Self.insert(connection, room, logger)
        }
    }

    /// A room and its members, in the caller's transaction.
    static func insert(_ connection: PostgresConnection, _ room: NewRoom, _ logger: Logger) async throws -> Chat {
        guard room.kind != .direct else { throw Refusal.notFound }
        let members: [UserID]
        if room.kind == .open {
            members = try await connection.rows("SELECT id FROM account WHERE deactivatedAt IS NULL ORDER BY id", logger: logger).map { UserID(try $0.at(0, as: Int64.self)) }
        } else {
            members = room.closedMembers
            let known = try await connection.row("SELECT count(*) FROM account WHERE id = ANY(\(members.map(\.rawValue)))", logger: logger)
            guard try known?.at(0, as: Int64.self) == Int64(members.count) else { throw Refusal.notFound }
        }
        let date = room.createdAt.timeIntervalSince1970
        // Found by its id: the key is set once the id is known.
        let row = try await connection.row("""
            INSERT INTO chat (pairKey, createdAt, lastActivity, kind, name, topic, memberCount)
            VALUES ('#~' || txid_current(), \(date), \(date), \(room.kind.rawValue), \(room.name), \(room.topic), \(Int64(members.count)))
            RETURNING id
            """, logger: logger)
        let id = try row!.at(0, as: Int64.self)
        try await connection.run("UPDATE chat SET pairKey = '#' || id WHERE id = \(id)", logger: logger)
        try await connection.run("""
            INSERT INTO member (chatID, userID, involvement, joinedAt)
            SELECT \(id), member, \(Involvement.joining(room.kind).rawValue), \(date) FROM unnest(\(members.map(\.rawValue))::BIGINT[]) AS member
            """, logger: logger)
        try await EventLogEntry.chatCreated(ChatID(id)).append(connection, logger: logger)
        return Chat(id: ChatID(id), members: members, createdAt: room.createdAt, kind: room.kind, name: room.name, topic: room.topic)
    }

    public func createDirectChat(among people: [UserID], at date: Date) async throws -> Chat {
        let members = Array(Set(people)).sorted()
        guard members.count > 2 else { throw Refusal.notFound }
        let key = Chat.directKey(members)
        do {
            return try await database.write { [logger] connection in
                if let existing = try await connection.row("SELECT id FROM chat WHERE pairKey = \(key)", logger: logger) {
                    throw Refusal.chatExists(ChatID(try existing.at(0, as: Int64.self)))
                }
                let known = try await connection.row("SELECT count(*) FROM account WHERE id = ANY(\(members.map(\.rawValue)))", logger: logger)
                guard try known?.at(0, as: Int64.self) == Int64(members.count) else { throw Refusal.notFound }
                let at = date.timeIntervalSince1970
                let row = try await connection.row("""
                    INSERT INTO chat (pairKey, createdAt, lastActivity, memberCount) VALUES (\(key), \(at), \(at), \(Int64(members.count))) RETURNING id
                    """, logger: logger)
                let chat = Chat(id: ChatID(try row!.at(0, as: Int64.self)), members: members, createdAt: date)
                try await connection.run("""
                    INSERT INTO member (chatID, userID, involvement, joinedAt)
                    SELECT \(chat.id.rawValue), member, \(Involvement.joining(.direct).rawValue), \(at) FROM unnest(\(members.map(\.rawValue))::BIGINT[]) AS member
                    """, logger: logger)
                try await EventLogEntry.chatCreated(chat.id).append(connection, logger: logger)
                return chat
            }
        } catch where error.isUniqueViolation {
            guard let existing = try await database.rows("SELECT id FROM chat WHERE pairKey = \(key)").first else { throw error }
            throw Refusal.chatExists(ChatID(try existing.at(0, as: Int64.self)))
        }
    }

    /// The names a direct chat of more than two is called by for `viewer`.
    static func others(_ connection: PostgresConnection, _ chat: Chat, viewer: UserID, _ logger: Logger) async throws -> [String] {
        guard chat.kind == .direct, chat.members.count > 2 else { return [] }
        return try await connection.rows("""
            SELECT u.displayName FROM member o JOIN account u ON u.id = o.userID WHERE o.chatID = \(chat.id.rawValue) AND o.userID <> \(viewer.rawValue)
            ORDER BY lower(u.displayName) LIMIT \(Int64(Chat.othersShown))
            """, logger: logger).map { try $0.at(0, as: String.self) }
    }

    public func chat(_ id: ChatID) async throws -> Chat? {
        try await database.single { [logger] connection in try await Self.chat(connection, id, logger) }
    }

    public func memberCount(of chat: ChatID) async throws -> Int? {
        try await database.rows("SELECT memberCount FROM chat WHERE id = \(chat.rawValue)").first.map { Int(try $0.at(0, as: Int64.self)) }
    }

    static func chat(_ connection: PostgresConnection, _ id: ChatID, _ logger: Logger) async throws -> Chat? {
        let rows = try await connection.rows("""
            SELECT chat.createdAt, member.userID, chat.kind, chat.name, chat.topic
            FROM chat JOIN member ON member.chatID = chat.id WHERE chat.id = \(id.rawValue) ORDER BY member.userID
            """, logger: logger)
        guard let first = rows.first else { return nil }
        return Chat(
            id: id, members: try rows.map { UserID(try $0.at(1, as: Int64.self)) }, createdAt: Date(timeIntervalSince1970: try first.at(0)),
            kind: RoomKind(rawValue: try first.at(2, as: String.self)) ?? .direct, name: try first.at(3, as: String?.self),
            topic: try first.at(4, as: String?.self)
        )
    }

    public func chatList(for viewer: UserID) async throws -> [ChatSummary] {
        try await database.single { [logger] connection in try await Self.summaries(connection, viewer: viewer, chat: nil, logger) }
    }

    public func chatSummary(_ chat: ChatID, for viewer: UserID) async throws -> ChatSummary? {
        try await database.single { [logger] connection in try await Self.summaries(connection, viewer: viewer, chat: chat, logger).first }
    }

    /// The chat list in one query, newest activity first; with `chat`, that one row.
    static func summaries(_ connection: PostgresConnection, viewer: UserID, chat: ChatID?, _ logger: Logger) async throws -> [ChatSummary] {
        let rows = try await connection.rows("""
            SELECT \(unescaped: summaryColumnsAndJoins)
            WHERE me.userID = \(viewer.rawValue) AND (\(chat?.rawValue)::BIGINT IS NULL OR me.chatID = \(chat?.rawValue))
            ORDER BY c.lastActivity DESC, c.id DESC
            """, logger: logger)
        return try rows.compactMap { try ChatSummary(row: $0) }
    }

    /// A room's name, or for a direct chat of more than two the names of the others (``Chat/othersShown``), for
    /// the viewer `me` of chat `c`.
    static let othersOrName = """
        CASE WHEN c.kind = 'direct' AND c.memberCount > 2 THEN (
            SELECT string_agg(n, ', ' ORDER BY lower(n)) FROM (
                SELECT ou.displayName AS n FROM member o JOIN account ou ON ou.id = o.userID
                WHERE o.chatID = c.id AND o.userID <> me.userID ORDER BY lower(ou.displayName) LIMIT \(Chat.othersShown)) x)
        ELSE c.name END
        """

    /// The columns of a chat list row (``ChatSummary/init(row:at:)``) and the joins they come from, for the
    /// viewer `me`: one row per membership (a room's other members are not joined; a direct chat of two names
    /// its other member).
    /// A membership `me`'s unread count in its chat `c`, from their positions (migration "16-unread-positions").
    static let unreadOfMember = "GREATEST(0, c.messageSeq - me.readSeq)"
    /// Its unread mentions: those that name it, and the @everyone ones after its position.
    static let mentionsOfMember = "me.mentionCount + GREATEST(0, c.everyoneSeq - me.everyoneReadSeq)"

    static let summaryColumnsAndJoins = """
        c.id, c.lastActivity, \(unreadOfMember), \(Columns.user(in: "u")), \(Columns.message(in: "m")), me.lastReadMessageID,
            c.kind, \(othersOrName), c.topic, c.memberCount, s.displayName, me.involvement, \(mentionsOfMember)
        FROM member me
        JOIN chat c ON c.id = me.chatID
        LEFT JOIN member other ON c.kind = 'direct' AND c.memberCount = 2 AND other.chatID = me.chatID AND other.userID <> me.userID
        LEFT JOIN account u ON u.id = other.userID
        LEFT JOIN message m ON m.id = c.lastMessageID
        LEFT JOIN account s ON s.id = m.senderID
        """

    public func unreadTotal(for viewer: UserID) async throws -> Int {
        let row = try await database.rows("""
            SELECT COALESCE(SUM(CASE me.involvement WHEN 'everything' THEN \(unescaped: Self.unreadOfMember) WHEN 'nothing' THEN 0
                ELSE \(unescaped: Self.mentionsOfMember) END), 0)::BIGINT
            FROM member me JOIN chat c ON c.id = me.chatID WHERE me.userID = \(viewer.rawValue)
            """).first
        return Int(try row?.at(0, as: Int64.self) ?? 0)
    }

    // MARK: Messages

    public func send(_ message: OutgoingMessage) async throws -> Message {
        try await sends.submit(message)
    }

    /// The message, when `person` sent it: `notFound` unless they are a member of its chat, `notYourMessage`
    /// when someone else sent it. Locks its row until the transaction ends.
    static func ownMessage(_ connection: PostgresConnection, _ id: MessageID, of person: UserID, _ logger: Logger) async throws -> Message {
        guard let row = try await connection.row("""
            SELECT \(unescaped: Columns.message) FROM message
            WHERE id = \(id.rawValue) AND EXISTS (SELECT 1 FROM member WHERE member.chatID = message.chatID AND member.userID = \(person.rawValue))
            FOR UPDATE
            """, logger: logger), let message = try Message(row: row)
        else { throw Refusal.notFound }
        guard message.senderID == person, message.notice == nil else { throw Refusal.notYourMessage }
        return message
    }

    public func edit(_ edit: MessageEdit) async throws -> Message {
        try await database.write { [logger] connection in
            let old = try await Self.ownMessage(connection, edit.messageID, of: edit.editorID, logger)
            guard !old.isDeleted else { throw Refusal.messageDeleted }
            try await connection.run(
                """
                UPDATE message SET body = \(edit.body), editedAt = \(edit.editedAt.timeIntervalSince1970), searchText = \(SearchText.searchable(edit.body)),
                    \(unescaped: Self.noCard)
                WHERE id = \(old.id.rawValue)
                """, logger: logger
            )
            try await Self.dropCardPicture(connection, of: old, logger)
            try await EventLogEntry.messageEdited(old.id).append(connection, logger: logger)
            return Message(
                id: old.id, chatID: old.chatID, senderID: old.senderID, body: edit.body, createdAt: old.createdAt,
                editedAt: edit.editedAt, replyTo: old.replyTo, photo: old.photo, preview: old.preview?.isRemoved == true ? .removed : nil
            )
        }
    }

    public func delete(_ deletion: MessageDeletion) async throws -> DeletedMessage {
        try await database.write { [logger] connection in
            let old = try await Self.ownMessage(connection, deletion.messageID, of: deletion.requesterID, logger)
            guard !old.isDeleted else { return DeletedMessage(message: old, deletedNow: false) }
            try await connection.run("""
                UPDATE message SET body = '', searchText = '', deletedAt = \(deletion.deletedAt.timeIntervalSince1970), photoID = NULL,
                    photoState = NULL, photoWidth = NULL, photoHeight = NULL, \(unescaped: Self.noCard)
                WHERE id = \(old.id.rawValue)
                """, logger: logger)
            try await Self.dropCardPicture(connection, of: old, logger)
            if let photo = old.photo {
                try await connection.run("DELETE FROM image WHERE id = \(photo.id.rawValue)", logger: logger)
            }
            try await connection.run("DELETE FROM reaction WHERE messageID = \(old.id.rawValue)", logger: logger)
            // Whoever had not read it has one message fewer to read (their position moves past it, never past the
            // chat's count), and one mention fewer if it named them (@everyone by position first, as SQLite's).
            // Deletions are rare: this is the one write that touches every member who had not read that far.
            let named = old.named
            try await connection.run("""
                UPDATE member SET readSeq = LEAST(member.readSeq + 1, c.messageSeq),
                    everyoneReadSeq = CASE WHEN \(named.everyone) THEN LEAST(member.everyoneReadSeq + 1, c.everyoneSeq) ELSE member.everyoneReadSeq END,
                    mentionCount = CASE
                        WHEN \(named.everyone) AND member.everyoneReadSeq < c.everyoneSeq THEN member.mentionCount
                        WHEN \(named.everyone) OR lower(a.handle) = ANY(\(Array(named.handles))) THEN GREATEST(0, member.mentionCount - 1)
                        ELSE member.mentionCount END
                FROM account a, chat c
                WHERE a.id = member.userID AND c.id = member.chatID AND member.chatID = \(old.chatID.rawValue)
                    AND member.userID <> \(old.senderID.rawValue) AND COALESCE(member.lastReadMessageID, 0) < \(old.id.rawValue)
                """, logger: logger)
            try await EventLogEntry.messageDeleted(old.id).append(connection, logger: logger)
            return DeletedMessage(message: old.deleted(at: deletion.deletedAt), deletedNow: true)
        }
    }

    public func message(_ id: MessageID) async throws -> Message? {
        try await database.single { [logger] connection in try await Self.message(connection, id, logger) }
    }

    static func message(_ connection: PostgresConnection, _ id: MessageID, _ logger: Logger) async throws -> Message? {
        try await connection.row("SELECT \(unescaped: Columns.message) FROM message WHERE id = \(id.rawValue)", logger: logger)
            .flatMap { try Message(row: $0) }
    }

    public func messages(in chat: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage {
        try await database.single { [logger] connection in try await Self.messages(connection, chat, before: before, limit: limit, logger) }
    }

    static func messages(_ connection: PostgresConnection, _ chat: ChatID, before: MessageID?, limit: Int, _ logger: Logger) async throws -> MessagePage {
        let limit = max(0, limit)
        let rows = try await connection.rows("""
            SELECT \(unescaped: Columns.message) FROM message
            WHERE chatID = \(chat.rawValue) AND id < \(before?.rawValue ?? Int64.max) ORDER BY id DESC LIMIT \(limit + 1)
            """, logger: logger)
        let messages = try rows.prefix(limit).compactMap { try Message(row: $0) }
        return MessagePage(messages: messages.reversed(), hasOlder: rows.count > limit)
    }

    public func messages(in chat: ChatID, after: MessageID, limit: Int) async throws -> MessagePage {
        let limit = max(0, limit)
        return try await database.single { [logger] connection in
            let rows = try await connection.rows("""
                SELECT \(unescaped: Columns.message) FROM message
                WHERE chatID = \(chat.rawValue) AND id > \(after.rawValue) ORDER BY id LIMIT \(limit + 1)
                """, logger: logger)
            let older = try await connection.row(
                "SELECT 1 FROM message WHERE chatID = \(chat.rawValue) AND id <= \(after.rawValue) LIMIT 1", logger: logger
            )
            return MessagePage(messages: try rows.prefix(limit).compactMap { try Message(row: $0) }, hasOlder: older != nil, hasNewer: rows.count > limit)
        }
    }

    public func markRead(_ report: ReadReport) async throws -> MessageID? {
        try await database.write { [logger] connection in
            guard let before = try await connection.row("""
                SELECT COALESCE(lastReadMessageID, 0) FROM member WHERE chatID = \(report.chatID.rawValue) AND userID = \(report.readerID.rawValue)
                FOR UPDATE
                """, logger: logger)
            else { throw Refusal.notFound }
            let previous = try before.at(0, as: Int64.self)
            let row = try await connection.row("""
                UPDATE member SET lastReadMessageID = GREATEST(COALESCE(lastReadMessageID, 0),
                    COALESCE((SELECT MAX(id) FROM message WHERE chatID = \(report.chatID.rawValue) AND id <= \(report.upTo?.rawValue ?? Int64.max)), 0))
                WHERE chatID = \(report.chatID.rawValue) AND userID = \(report.readerID.rawValue)
                RETURNING lastReadMessageID
                """, logger: logger)
            let mark = try row?.at(0, as: Int64?.self) ?? 0
            try await connection.run("""
                UPDATE member SET (readSeq, everyoneReadSeq, mentionCount) = (
                    SELECT c.messageSeq - later.unread, c.everyoneSeq, later.mentioned
                    FROM chat c, (
                        SELECT count(*) AS unread, count(*) FILTER (WHERE message.mentions IS NOT NULL
                                AND (position(' * ' IN message.mentions) > 0 OR position(' ' || lower(a.handle) || ' ' IN message.mentions) > 0))
                                AS mentioned
                        FROM message, account a
                        WHERE a.id = member.userID AND message.chatID = member.chatID AND message.id > COALESCE(member.lastReadMessageID, 0)
                            AND message.senderID <> member.userID AND message.deletedAt IS NULL AND message.noticeKind IS NULL) later
                    WHERE c.id = member.chatID)
                WHERE chatID = \(report.chatID.rawValue) AND userID = \(report.readerID.rawValue)
                """, logger: logger)
            if mark > previous {
                try await EventLogEntry.userRead(
                    chat: report.chatID, reader: report.readerID, previous: previous > 0 ? MessageID(previous) : nil, upTo: MessageID(mark)
                ).append(connection, logger: logger)
            }
            return mark > 0 ? MessageID(mark) : nil
        }
    }

    public func setInvolvement(_ involvement: Involvement, in chat: ChatID, for user: UserID) async throws -> Membership {
        try await database.write { [logger] connection in
            guard try await connection.row("""
                UPDATE member SET involvement = \(involvement.rawValue) WHERE chatID = \(chat.rawValue) AND userID = \(user.rawValue) RETURNING 1
                """, logger: logger) != nil, let membership = try await Self.membership(connection, chat, user, logger)
            else { throw Refusal.notFound }
            try await EventLogEntry.involvementChanged(chat, member: user).append(connection, logger: logger)
            return membership
        }
    }

    public func membership(_ chat: ChatID, _ user: UserID) async throws -> Membership? {
        try await database.single { [logger] connection in try await Self.membership(connection, chat, user, logger) }
    }

    static func membership(_ connection: PostgresConnection, _ chat: ChatID, _ user: UserID, _ logger: Logger) async throws -> Membership? {
        guard let row = try await connection.row(
            "SELECT lastReadMessageID, involvement, joinedAt FROM member WHERE chatID = \(chat.rawValue) AND userID = \(user.rawValue)", logger: logger
        ) else { return nil }
        return Membership(
            chatID: chat, userID: user, lastRead: try row.at(0, as: Int64?.self).flatMap { $0 > 0 ? MessageID($0) : nil },
            involvement: Involvement(rawValue: try row.at(1, as: String.self)) ?? .everything, joinedAt: Date(timeIntervalSince1970: try row.at(2))
        )
    }

    static func isMember(_ connection: PostgresConnection, _ chat: ChatID, _ user: UserID, _ logger: Logger) async throws -> Bool {
        try await connection.row("SELECT 1 FROM member WHERE chatID = \(chat.rawValue) AND userID = \(user.rawValue)", logger: logger) != nil
    }

    // MARK: Screens

    /// The screen in one statement, consistent by itself: no BEGIN and COMMIT round trips, one answer.
    public func chatsScreen(for viewer: UserID, open chat: ChatID?, before: MessageID?, limit: Int) async throws -> ChatsScreen {
        guard let chat else {
            let summaries = try await database.single { [logger] connection in try await Self.summaries(connection, viewer: viewer, chat: nil, logger) }
            return ChatsScreen(summaries: summaries, conversation: nil, viewerLastRead: nil)
        }
        let screen = try await database.single { [logger] connection in
            try await Self.screen(connection, viewer: viewer, open: chat, before: before, limit: limit, logger)
        }
        // The reactions to the page's messages: a second statement, only when it shows some.
        guard let conversation = screen.conversation, !conversation.messages.isEmpty else { return screen }
        let reactions = try await self.reactions(to: conversation.messages.map(\.id))
        return ChatsScreen(summaries: screen.summaries, conversation: conversation.with(reactions: reactions), viewerLastRead: screen.viewerLastRead)
    }

    /// What one row of ``screen(_:viewer:open:before:limit:_:)`` is, in its first column.
    private enum ScreenRow: Int32 {
        /// A chat of the list: the columns of ``summaries(_:viewer:chat:_:)`` from the second on.
        case summary = 0
        /// The open chat: the viewer's read mark (column 3), the contact of a direct chat of two (4-10), the
        /// contact's read mark (``markColumn``), the chat's kind, name, topic and member count (after it).
        case opened = 1
        /// A message of the page, newest first, one more than the page holds (columns from 11).
        case message = 2
        /// A message the page's replies quote (columns from 11).
        case quoted = 3
        /// Someone who wrote a message of the page or one it quotes (columns 4-10).
        case author = 4
    }

    /// After the tag, id, activity, count or mark, a person's 7 columns and a message's.
    private static let markColumn = 11 + Columns.messageCount

    /// The list, and the open chat's newest (or older) messages with what they quote, their authors, the
    /// contact and both read marks, as one statement of five kinds of rows. A viewer who is not a member gets
    /// the list only.
    static func screen(
        _ connection: PostgresConnection, viewer: UserID, open chat: ChatID, before: MessageID?, limit: Int, _ logger: Logger
    ) async throws -> ChatsScreen {
        let limit = max(0, limit)
        let nullUser = Array(repeating: "NULL", count: 7).joined(separator: ", ")
        let nullMessage = Array(repeating: "NULL", count: Columns.messageCount).joined(separator: ", ")
        let nullChat = "NULL, NULL, NULL, NULL::BIGINT, NULL, NULL, NULL::BIGINT"
        let rows = try await connection.rows("""
            WITH opened AS (
                SELECT me.lastReadMessageID AS viewerMark, other.userID AS contactID, other.lastReadMessageID AS contactMark,
                    c.kind, \(unescaped: othersOrName) AS name, c.topic, c.memberCount
                FROM member me JOIN chat c ON c.id = me.chatID
                LEFT JOIN member other ON c.kind = 'direct' AND c.memberCount = 2 AND other.chatID = me.chatID AND other.userID <> me.userID
                WHERE me.chatID = \(chat.rawValue) AND me.userID = \(viewer.rawValue)
            ), page AS (
                SELECT \(unescaped: Columns.message) FROM message
                WHERE chatID = \(chat.rawValue) AND id < \(before?.rawValue ?? Int64.max) AND EXISTS (SELECT 1 FROM opened)
                ORDER BY id DESC LIMIT \(limit + 1)
            ), quotes AS (
                SELECT \(unescaped: Columns.message(in: "q")) FROM message q
                WHERE q.chatID = \(chat.rawValue) AND q.id IN (SELECT replyToID FROM page)
            )
            SELECT 0, \(unescaped: summaryColumnsAndJoins)
            WHERE me.userID = \(viewer.rawValue)
            UNION ALL
            SELECT 1, NULL, NULL, o.viewerMark, \(unescaped: Columns.user(in: "u")), \(unescaped: nullMessage), o.contactMark,
                o.kind, o.name, o.topic, o.memberCount, NULL, NULL, NULL::BIGINT
            FROM opened o LEFT JOIN account u ON u.id = o.contactID
            UNION ALL
            SELECT 2, NULL, NULL, NULL, \(unescaped: nullUser), \(unescaped: Columns.message), NULL, \(unescaped: nullChat) FROM page
            UNION ALL
            SELECT 3, NULL, NULL, NULL, \(unescaped: nullUser), \(unescaped: Columns.message), NULL, \(unescaped: nullChat) FROM quotes
            UNION ALL
            SELECT 4, NULL, NULL, NULL, \(unescaped: Columns.user(in: "a")), \(unescaped: nullMessage), NULL, \(unescaped: nullChat)
            FROM account a WHERE a.id IN (SELECT senderID FROM page UNION SELECT senderID FROM quotes)
            """, logger: logger)
        var summaries: [ChatSummary] = []
        var opened: (viewerMark: MessageID?, heading: ChatHeading, contactMark: MessageID?)?
        var newestFirst: [Message] = []
        var quotable: [Message] = []
        var authors: [User] = []
        for row in rows {
            switch ScreenRow(rawValue: try row.at(0, as: Int32.self)) {
            case .summary: if let summary = try ChatSummary(row: row, at: 1) { summaries.append(summary) }
            case .opened:
                opened = (
                    Self.mark(try row.at(3, as: Int64?.self)), try ChatHeading(row: row, at: Self.markColumn + 1, contactAt: 4),
                    Self.mark(try row.at(Self.markColumn, as: Int64?.self))
                )
            case .message: if let message = try Message(row: row, at: 11) { newestFirst.append(message) }
            case .quoted: if let message = try Message(row: row, at: 11) { quotable.append(message) }
            case .author: if let author = try User(optionalRow: row, at: 4) { authors.append(author) }
            case nil: continue
            }
        }
        summaries = summaries.newestActivityFirst()
        guard let opened, !(opened.heading.kind == .direct && opened.heading.memberCount == 2 && opened.heading.contact == nil) else {
            return ChatsScreen(summaries: summaries, conversation: nil, viewerLastRead: nil)
        }
        newestFirst.sort { $0.id.rawValue > $1.id.rawValue }
        let messages = Array(newestFirst.prefix(limit).reversed())
        // Only what the page's own replies quote and the page does not show (the extra row is not shown).
        let onPage = Set(messages.map(\.id))
        let wanted = Set(messages.compactMap(\.replyTo)).subtracting(onPage)
        let quoted = quotable.filter { wanted.contains($0.id) }.sorted { $0.id.rawValue < $1.id.rawValue }
        let shown = Set(ConversationSnapshot.authors(of: messages, quoted))
        let conversation = ConversationSnapshot(
            chatID: chat, heading: opened.heading, messages: messages, quoted: quoted, people: authors.filter { shown.contains($0.id) },
            contactLastRead: opened.contactMark, hasOlder: newestFirst.count > limit
        )
        return ChatsScreen(summaries: summaries, conversation: conversation, viewerLastRead: opened.viewerMark)
    }

    /// A read mark as stored: NULL or zero is "nothing read".
    private static func mark(_ stored: Int64?) -> MessageID? {
        stored.flatMap { $0 > 0 ? MessageID($0) : nil }
    }

    public func conversation(_ chat: ChatID, viewer: UserID, before: MessageID?, limit: Int) async throws -> ConversationSnapshot? {
        try await database.read { [logger] connection in
            try await Self.conversation(connection, chat, viewer: viewer, before: before, limit: limit, logger)
        }
    }

    static func conversation(
        _ connection: PostgresConnection, _ chat: ChatID, viewer: UserID, before: MessageID?, limit: Int, _ logger: Logger
    ) async throws -> ConversationSnapshot? {
        guard let stored = try await Self.chat(connection, chat, logger), stored.hasMember(viewer) else { return nil }
        let contactID = stored.contact(of: viewer)
        var contact: User?
        if let contactID {
            contact = try await Self.user(connection, contactID, logger)
            if contact == nil { return nil }
        }
        let page = try await Self.messages(connection, chat, before: before, limit: limit, logger)
        let onPage = Set(page.messages.map(\.id))
        let wanted = Set(page.messages.compactMap(\.replyTo)).subtracting(onPage).map(\.rawValue).sorted()
        var quoted: [Message] = []
        if !wanted.isEmpty {
            quoted = try await connection.rows("""
                SELECT \(unescaped: Columns.message) FROM message WHERE id = ANY(\(wanted)) AND chatID = \(chat.rawValue) ORDER BY id
                """, logger: logger).compactMap { try Message(row: $0) }
        }
        let authors = ConversationSnapshot.authors(of: page.messages, quoted).filter { $0 != contactID }.map(\.rawValue)
        var people: [User] = []
        if !authors.isEmpty {
            people = try await connection.rows("SELECT \(unescaped: Columns.user) FROM account WHERE id = ANY(\(authors))", logger: logger)
                .map { try User(row: $0) }
        }
        var contactLastRead: MessageID?
        if let contactID { contactLastRead = try await Self.membership(connection, chat, contactID, logger)?.lastRead }
        return ConversationSnapshot(
            chatID: chat, heading: stored.heading(contact: contact, others: try await Self.others(connection, stored, viewer: viewer, logger)),
            messages: page.messages, quoted: quoted, people: people,
            contactLastRead: contactLastRead, hasOlder: page.hasOlder,
            reactions: try await Self.reactions(connection, page.messages.map(\.id), logger)
        )
    }
}
