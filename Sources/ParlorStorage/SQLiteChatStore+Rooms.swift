import Foundation
import GRDB
import ParlorDomain

// Changes to a room: who is in it, its name and topic, each with the line its conversation shows.

extension SQLiteChatStore {
    public func addMembers(_ people: [UserID], to chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
        try await write { db in
            let room = try Self.room(db, chat, by: by, kinds: [.closed], otherwise: .membersFixed)
            var added: [UserID] = []
            for person in people where !room.hasMember(person) && !added.contains(person) { added.append(person) }
            guard !added.isEmpty else { return RoomChange(chat: room, notices: []) }
            let known = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user WHERE id IN (\(added.map { String($0.rawValue) }.joined(separator: ",")))")
            guard known == added.count else { throw Refusal.notFound }
            // Joined now, with the history to read back through: what was said before is not unread for them, nor seen.
            let insert = try db.cachedStatement(sql: """
                INSERT INTO member (chatID, userID, lastReadMessageID, joinedAfterMessageID, involvement, joinedAt, readSeq, everyoneReadSeq)
                SELECT id, ?, lastMessageID, IFNULL(lastMessageID, 0), ?, ?, messageSeq, everyoneSeq FROM chat WHERE id = ?
                """)
            for person in added {
                try insert.execute(arguments: [person.rawValue, Involvement.joining(room.kind).rawValue, date.timeIntervalSince1970, chat.rawValue])
            }
            try db.cachedStatement(sql: "UPDATE chat SET memberCount = memberCount + ? WHERE id = ?").execute(arguments: [added.count, chat.rawValue])
            let notices = try added.map { try Self.notice(db, RoomNotice(kind: .added, subject: $0), in: chat, by: by, at: date) }
            return RoomChange(chat: room.with(members: room.members + added), added: added, notices: notices)
        }
    }

    public func removeMember(_ person: UserID, from chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
        try await write { db in
            let room = try Self.room(db, chat, by: by, kinds: [.closed], otherwise: .membersFixed)
            guard room.hasMember(person) else { throw Refusal.notFound }
            let notice = try Self.notice(db, person == by ? RoomNotice(kind: .left) : RoomNotice(kind: .removed, subject: person), in: chat, by: by, at: date)
            try db.cachedStatement(sql: "DELETE FROM member WHERE chatID = ? AND userID = ?").execute(arguments: [chat.rawValue, person.rawValue])
            try db.cachedStatement(sql: "UPDATE chat SET memberCount = memberCount - 1 WHERE id = ?").execute(arguments: [chat.rawValue])
            return RoomChange(chat: room.with(members: room.members.filter { $0 != person }), removed: [person], notices: [notice])
        }
    }

    public func renameRoom(_ chat: ChatID, name: String, topic: String?, by: UserID, at date: Date) async throws -> RoomChange {
        try await write { db in
            let room = try Self.room(db, chat, by: by, kinds: [.open, .closed], otherwise: .notARoom)
            var notices: [Message] = []
            if name != room.name { notices.append(try Self.notice(db, RoomNotice(kind: .renamed, text: name), in: chat, by: by, at: date)) }
            if topic != room.topic { notices.append(try Self.notice(db, RoomNotice(kind: .topicChanged, text: topic), in: chat, by: by, at: date)) }
            try db.cachedStatement(sql: "UPDATE chat SET name = ?, topic = ? WHERE id = ?").execute(arguments: [name, topic, chat.rawValue])
            return RoomChange(
                chat: Chat(id: chat, members: room.members, createdAt: room.createdAt, kind: room.kind, name: name, topic: topic), notices: notices
            )
        }
    }

    public func readers(of chat: ChatID) async throws -> [Reader] {
        try await read { db in
            try db.cachedStatement(sql: """
                SELECT \(Columns.user(in: "u")), m.lastReadMessageID, m.joinedAfterMessageID FROM member m JOIN user u ON u.id = m.userID
                WHERE m.chatID = ? AND m.lastReadMessageID > m.joinedAfterMessageID
                """).all(arguments: [chat.rawValue]) { row in
                    Reader(user: User(row, at: 0), lastRead: MessageID(row.int64(7)), joinedAfter: MessageID(row.int64(8)))
                }
        }
    }

    public func members(of chat: ChatID, viewer: UserID) async throws -> [User]? {
        try await read { db in
            guard try Self.isMember(db, chat, viewer) else { return nil }
            return try db.cachedStatement(sql: """
                SELECT \(Columns.user(in: "u")) FROM member m JOIN user u ON u.id = m.userID WHERE m.chatID = ?
                ORDER BY lower(u.displayName), u.handle
                """).all(arguments: [chat.rawValue]) { User($0, at: 0) }
        }
    }

    public func sharingAChat(with viewer: UserID, among people: Set<UserID>) async throws -> Set<UserID> {
        guard !people.isEmpty else { return [] }
        return try await read { db in
            let marks = Array(repeating: "?", count: people.count).joined(separator: ", ")
            let rows = try Int64.fetchAll(db, sql: """
                SELECT DISTINCT other.userID FROM member mine JOIN member other ON other.chatID = mine.chatID
                WHERE mine.userID = ? AND other.userID IN (\(marks))
                """, arguments: StatementArguments([viewer.rawValue] + people.map(\.rawValue)))
            return Set(rows.map { UserID($0) })
        }
    }

    /// The chat, when `by` is one of its members and it is of one of `kinds` (else `otherwise`).
    static func room(_ db: Database, _ id: ChatID, by: UserID, kinds: Set<RoomKind>, otherwise: Refusal) throws -> Chat {
        guard let chat = try chat(db, id), chat.hasMember(by) else { throw Refusal.notFound }
        guard kinds.contains(chat.kind) else { throw otherwise }
        return chat
    }

    /// A line about the room, stored as the chat's newest message; nobody's unread count moves.
    static func notice(_ db: Database, _ notice: RoomNotice, in chat: ChatID, by: UserID, at date: Date) throws -> Message {
        try db.cachedStatement(sql: """
            INSERT INTO message (chatID, senderID, body, createdAt, token, noticeKind, noticeSubject, noticeText) VALUES (?, ?, '', ?, ?, ?, ?, ?)
            """).execute(arguments: [
                chat.rawValue, by.rawValue, date.timeIntervalSince1970, "notice-" + UUID().uuidString, notice.kind.rawValue, notice.subject?.rawValue,
                notice.text,
            ])
        let id = db.lastInsertedRowID
        try db.cachedStatement(sql: "UPDATE chat SET lastMessageID = ?, lastActivity = MAX(lastActivity, ?) WHERE id = ?")
            .execute(arguments: [id, date.timeIntervalSince1970, chat.rawValue])
        return Message(id: MessageID(id), chatID: chat, senderID: by, body: "", createdAt: date, notice: notice)
    }
}
