import Foundation
import Logging
import ParlorDomain
import PostgresNIO

// Changes to a room: who is in it, its name and topic, each with the line its conversation shows. Each takes
// the chat's lock first: the lines are messages (see ChatLocks).

extension PostgresChatStore {
    public func addMembers(_ people: [UserID], to chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
        try await database.write { [logger] connection in
            try await ChatLocks.lock([chat], connection, logger)
            let room = try await Self.room(connection, chat, by: by, kinds: [.closed], otherwise: .membersFixed, logger)
            var added: [UserID] = []
            for person in people where !room.hasMember(person) && !added.contains(person) { added.append(person) }
            guard !added.isEmpty else { return RoomChange(chat: room, notices: []) }
            let known = try await connection.row("SELECT count(*) FROM account WHERE id = ANY(\(added.map(\.rawValue)))", logger: logger)
            guard try known?.at(0, as: Int64.self) == Int64(added.count) else { throw Refusal.notFound }
            // Joined now, with the history to read back through: what was said before is not unread for them, nor seen.
            try await connection.run("""
                INSERT INTO member (chatID, userID, lastReadMessageID, joinedAfterMessageID, involvement, joinedAt, readSeq, everyoneReadSeq)
                SELECT c.id, person, c.lastMessageID, COALESCE(c.lastMessageID, 0), \(Involvement.joining(room.kind).rawValue), \(date.timeIntervalSince1970),
                    c.messageSeq, c.everyoneSeq
                FROM chat c, unnest(\(added.map(\.rawValue))::BIGINT[]) AS person WHERE c.id = \(chat.rawValue)
                """, logger: logger)
            try await connection.run("UPDATE chat SET memberCount = memberCount + \(Int64(added.count)) WHERE id = \(chat.rawValue)", logger: logger)
            var notices: [Message] = []
            for person in added { notices.append(try await Self.notice(connection, RoomNotice(kind: .added, subject: person), in: chat, by: by, at: date, logger)) }
            let change = RoomChange(chat: room.with(members: room.members + added), added: added, notices: notices)
            try await Self.log(change, by: by, connection, logger)
            return change
        }
    }

    public func removeMember(_ person: UserID, from chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
        try await database.write { [logger] connection in
            try await ChatLocks.lock([chat], connection, logger)
            let room = try await Self.room(connection, chat, by: by, kinds: [.closed], otherwise: .membersFixed, logger)
            guard room.hasMember(person) else { throw Refusal.notFound }
            let notice = try await Self.notice(
                connection, person == by ? RoomNotice(kind: .left) : RoomNotice(kind: .removed, subject: person), in: chat, by: by, at: date, logger
            )
            try await connection.run("DELETE FROM member WHERE chatID = \(chat.rawValue) AND userID = \(person.rawValue)", logger: logger)
            try await connection.run("UPDATE chat SET memberCount = memberCount - 1 WHERE id = \(chat.rawValue)", logger: logger)
            let change = RoomChange(chat: room.with(members: room.members.filter { $0 != person }), removed: [person], notices: [notice])
            try await Self.log(change, by: by, connection, logger)
            return change
        }
    }

    public func renameRoom(_ chat: ChatID, name: String, topic: String?, by: UserID, at date: Date) async throws -> RoomChange {
        try await database.write { [logger] connection in
            try await ChatLocks.lock([chat], connection, logger)
            let room = try await Self.room(connection, chat, by: by, kinds: [.open, .closed], otherwise: .notARoom, logger)
            var notices: [Message] = []
            if name != room.name {
                notices.append(try await Self.notice(connection, RoomNotice(kind: .renamed, text: name), in: chat, by: by, at: date, logger))
            }
            if topic != room.topic {
                notices.append(try await Self.notice(connection, RoomNotice(kind: .topicChanged, text: topic), in: chat, by: by, at: date, logger))
            }
            try await connection.run("UPDATE chat SET name = \(name), topic = \(topic) WHERE id = \(chat.rawValue)", logger: logger)
            let change = RoomChange(
                chat: Chat(id: chat, members: room.members, createdAt: room.createdAt, kind: room.kind, name: name, topic: topic), notices: notices
            )
            try await EventLogEntry.roomRenamed(chat).append(connection, logger: logger)
            for notice in notices { try await EventLogEntry.messageSent(notice.id, token: "notice-\(notice.id)").append(connection, logger: logger) }
            return change
        }
    }

    /// The change's entries in the log: the members first (so the newcomers' pages are known when the lines
    /// arrive), then the lines.
    private static func log(_ change: RoomChange, by: UserID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await EventLogEntry.membersChanged(change.chat.id, by: by, added: change.added, removed: change.removed).append(connection, logger: logger)
        for notice in change.notices { try await EventLogEntry.messageSent(notice.id, token: "notice-\(notice.id)").append(connection, logger: logger) }
    }

    public func readers(of chat: ChatID) async throws -> [Reader] {
        try await database.rows("""
            SELECT \(unescaped: Columns.user(in: "u")), m.lastReadMessageID, m.joinedAfterMessageID FROM member m JOIN account u ON u.id = m.userID
            WHERE m.chatID = \(chat.rawValue) AND m.lastReadMessageID > m.joinedAfterMessageID
            """).map { row in
                Reader(user: try User(row: row), lastRead: MessageID(try row.at(7, as: Int64.self)), joinedAfter: MessageID(try row.at(8, as: Int64.self)))
            }
    }

    public func members(of chat: ChatID, viewer: UserID) async throws -> [User]? {
        try await database.read { [logger] connection in
            guard try await Self.isMember(connection, chat, viewer, logger) else { return nil }
            return try await connection.rows("""
                SELECT \(unescaped: Columns.user(in: "u")) FROM member m JOIN account u ON u.id = m.userID WHERE m.chatID = \(chat.rawValue)
                ORDER BY lower(u.displayName), u.handle
                """, logger: logger).map { try User(row: $0) }
        }
    }

    public func sharingAChat(with viewer: UserID, among people: Set<UserID>) async throws -> Set<UserID> {
        guard !people.isEmpty else { return [] }
        let ids = people.map(\.rawValue)
        let rows = try await database.rows("""
            SELECT DISTINCT other.userID FROM member mine JOIN member other ON other.chatID = mine.chatID
            WHERE mine.userID = \(viewer.rawValue) AND other.userID = ANY(\(ids))
            """)
        return Set(try rows.map { UserID(try $0.at(0, as: Int64.self)) })
    }

    /// The chat, when `by` is one of its members and it is of one of `kinds` (else `otherwise`).
    static func room(
        _ connection: PostgresConnection, _ id: ChatID, by: UserID, kinds: Set<RoomKind>, otherwise: Refusal, _ logger: Logger
    ) async throws -> Chat {
        guard let chat = try await chat(connection, id, logger), chat.hasMember(by) else { throw Refusal.notFound }
        guard kinds.contains(chat.kind) else { throw otherwise }
        return chat
    }

    /// A line about the room, stored as the chat's newest message; nobody's unread count moves.
    static func notice(
        _ connection: PostgresConnection, _ notice: RoomNotice, in chat: ChatID, by: UserID, at date: Date, _ logger: Logger
    ) async throws -> Message {
        let at = date.timeIntervalSince1970
        let row = try await connection.row("""
            INSERT INTO message (chatID, senderID, body, createdAt, token, noticeKind, noticeSubject, noticeText, searchText)
            VALUES (\(chat.rawValue), \(by.rawValue), '', \(at), \("notice-" + UUID().uuidString), \(notice.kind.rawValue), \(notice.subject?.rawValue),
                \(notice.text), '')
            RETURNING id
            """, logger: logger)
        let id = try row!.at(0, as: Int64.self)
        try await connection.run(
            "UPDATE chat SET lastMessageID = \(id), lastActivity = GREATEST(lastActivity, \(at)) WHERE id = \(chat.rawValue)", logger: logger
        )
        return Message(id: MessageID(id), chatID: chat, senderID: by, body: "", createdAt: date, notice: notice)
    }
}
