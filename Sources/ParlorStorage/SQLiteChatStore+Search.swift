import Foundation
import GRDB
import ParlorDomain

// Search on SQLite: the statement (``SQLiteSearch``) run in one read with what the results page shows, and the
// indexes kept up with new messages in batches.

extension SQLiteChatStore: SearchStore {
    public func search(_ search: MessageSearch) async throws -> SearchResults {
        guard !search.isEmpty else { return .none }
        try await indexBeforeSearch()
        return try await readNowOrInPool { db in
            guard let scope = try Self.scope(db, search) else { return .none }
            let statement = SQLiteSearch(search, scope: scope)
            var messages: [Message] = []
            try db.cachedStatement(sql: statement.sql).forEachRow(arguments: statement.arguments) { row in
                if let message = Message(row, at: 0) { messages.append(message) }
            }
            let page = Array(messages.prefix(search.limit))
            var people: [UserID: User] = [:]
            for id in Set(page.map(\.senderID)) { people[id] = try Self.user(db, id) }
            return SearchResults(
                messages: page, hasMore: messages.count > search.limit, headings: try Self.headings(db, Set(page.map(\.chatID)), viewer: search.viewer),
                people: people
            )
        }
    }

    /// How each chat is called for `viewer`: a room by its row (name, topic, member count; its members are not
    /// read: the room of everyone has thousands), a direct chat by its people.
    static func headings(_ db: Database, _ chats: Set<ChatID>, viewer: UserID) throws -> [ChatID: ChatHeading] {
        var headings: [ChatID: ChatHeading] = [:]
        for id in chats {
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT kind, name, topic, memberCount FROM chat WHERE id = ?"), arguments: [id.rawValue])
            else { continue }
            let kind = RoomKind(rawValue: row[0] as String) ?? .direct
            if kind != .direct {
                headings[id] = ChatHeading(kind: kind, name: row[1], topic: row[2], memberCount: row[3], contact: nil)
            } else if let chat = try Self.chat(db, id) {
                headings[id] = chat.heading(contact: try chat.contact(of: viewer).flatMap { try Self.user(db, $0) }, others: try Self.others(db, chat, viewer: viewer))
            }
        }
        return headings
    }

    /// The chats and senders `search` may return; nil when none can match (no such person, no such room of the viewer's).
    private static func scope(_ db: Database, _ search: MessageSearch) throws -> SQLiteSearch.Scope? {
        var scope = SQLiteSearch.Scope()
        if !search.from.isEmpty {
            let marks = Array(repeating: "?", count: search.from.count).joined(separator: ", ")
            let senders = try Int64.fetchAll(db, sql: "SELECT id FROM user WHERE handle IN (\(marks))", arguments: StatementArguments(search.from))
            guard !senders.isEmpty else { return nil }
            scope.senders = senders
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT chat.id, chat.name FROM member JOIN chat ON chat.id = member.chatID WHERE member.userID = ?
            """, arguments: [search.viewer.rawValue])
        var chats = rows.map { $0[0] as Int64 }
        if !search.rooms.isEmpty {
            chats = rows.compactMap { row in search.namesRoom(row[1]) ? row[0] as Int64 : nil }
            guard !chats.isEmpty else { return nil }
        }
        guard !chats.isEmpty else { return nil }
        scope.chats = chats.count <= SQLiteSearch.scopeLimit || !search.rooms.isEmpty ? chats : nil
        return scope
    }

    /// Adds the messages the indexes have not read yet, up to `limit` of them, in the caller's write transaction;
    /// answers how far the indexes are, and the newest message.
    @discardableResult
    static func indexNewMessages(_ db: Database, limit: Int64) throws -> (done: Int64, newest: Int64) {
        let done = try Int64.fetchOne(db.cachedStatement(sql: "SELECT doneThrough FROM searchIndex")) ?? 0
        let newest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT IFNULL(MAX(id), 0) FROM message")) ?? 0
        guard newest > done else { return (done, newest) }
        let next = newest - done <= limit ? newest : done + limit
        let ideographic = SQLiteSearch.ideographicGlob
        let has = "length(body) < length(CAST(body AS BLOB)) AND body GLOB ?"
        try db.cachedStatement(sql: "INSERT INTO message_words(rowid, body, searchScope) SELECT id, body, searchScope FROM message WHERE id > ? AND id <= ?")
            .execute(arguments: [done, next])
        try db.cachedStatement(sql: "INSERT INTO message_trigrams(rowid, body) SELECT id, body FROM message WHERE id > ? AND id <= ? AND \(has)")
            .execute(arguments: [done, next, ideographic])
        try db.cachedStatement(sql: "INSERT INTO message_ideographs(id, chatID) SELECT id, chatID FROM message WHERE id > ? AND id <= ? AND \(has)")
            .execute(arguments: [done, next, ideographic])
        try db.cachedStatement(sql: "UPDATE searchIndex SET doneThrough = ?").execute(arguments: [next])
        return (next, newest)
    }

    /// Indexes every message not in the indexes yet (at start: after an upgrade, all the messages stored before),
    /// a batch per transaction; `progress` hears how far (messages indexed, of how many waiting).
    static func indexForSearch(_ pool: DatabasePool, batch: Int64 = 20_000, progress: ((Int, Int) -> Void)?) throws {
        guard let (done, newest) = try pool.read({ db in
            try Row.fetchOne(db, sql: "SELECT doneThrough, (SELECT IFNULL(MAX(id), 0) FROM message) FROM searchIndex").map { ($0[0] as Int64, $0[1] as Int64) }
        }), done < newest else { return }
        while true {
            let (through, last) = try pool.write { db in try indexNewMessages(db, limit: batch) }
            progress?(Int(through - done), Int(max(last, newest) - done))
            if through >= last { break }
        }
    }

    /// Before a search: the messages sent since the last batch go in, so a message just sent is found.
    func indexBeforeSearch() async throws {
        let behind = try readHere { db in
            try Bool.fetchOne(db, sql: "SELECT doneThrough < (SELECT IFNULL(MAX(id), 0) FROM message) FROM searchIndex") ?? false
        }
        if behind { try await pool.write { db in _ = try Self.indexNewMessages(db, limit: .max) } }
    }
}
