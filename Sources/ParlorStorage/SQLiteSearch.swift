import Foundation
import GRDB
import ParlorDomain

/// A search turned into one SQLite statement. The words go to FTS5 as a pattern Parlor writes from the parsed
/// query, every word in double quotes (so nothing a person types is read as FTS5 syntax) and bound as a value,
/// never spliced into the SQL. The word index is asked for the viewer's chats too (its `searchScope` column),
/// so it walks only messages the viewer may see, newest first (or by rank); membership is checked again on each
/// row, so a page of results is the viewer's first results, never a top-N filtered afterwards.
struct SQLiteSearch {
    /// `GLOB` for text with a Han, kana or Hangul character: the ranges of ``SearchText/isIdeographic(_:)``.
    static let ideographicGlob = "*[\u{1100}-\u{11FF}\u{2E80}-\u{2FDF}\u{3040}-\u{30FF}\u{3100}-\u{31FF}\u{3400}-\u{4DBF}\u{4E00}-\u{9FFF}\u{A960}-\u{A97F}\u{AC00}-\u{D7AF}\u{F900}-\u{FAFF}\u{FF66}-\u{FF9F}\u{20000}-\u{3134F}]*"

    /// Past this many chats, the index is not asked for them by name (the pattern would be long): membership
    /// alone narrows the walk.
    static let scopeLimit = 500

    /// Which chats and senders a search may return, read before it: nil when anything goes.
    struct Scope {
        /// The viewer's chats (those `in:` names, when given); nil past ``SQLiteSearch/scopeLimit``.
        var chats: [Int64]?
        /// The people `from:` names.
        var senders: [Int64]?
    }

    let sql: String
    let arguments: StatementArguments

    init(_ search: MessageSearch, scope: Scope) {
        var words: [String] = []
        var trigrams: [String] = []
        var short: [String] = []
        for term in search.terms {
            switch term {
            case .prefix(let parts): words.append(Self.quoted(parts.joined(separator: " ")) + "*")
            case .phrase(let parts): words.append(Self.quoted(parts.joined(separator: " ")))
            case .substring(let text) where text.unicodeScalars.count >= 3: trigrams.append(Self.quoted(text))
            case .substring(let text): short.append(text)
            }
        }
        // The word index also answers a search by sender or room alone.
        var pattern: [String] = []
        if !words.isEmpty { pattern.append("body : (" + words.joined(separator: " AND ") + ")") }
        let usesWords = !words.isEmpty || (trigrams.isEmpty && short.isEmpty && (scope.senders != nil || !search.rooms.isEmpty))
        if usesWords {
            if let chats = scope.chats { pattern.append("searchScope : (" + chats.map { "c\($0)" }.joined(separator: " OR ") + ")") }
            if let senders = scope.senders { pattern.append("searchScope : (" + senders.map { "u\($0)" }.joined(separator: " OR ") + ")") }
        }
        var arguments: [any DatabaseValueConvertible] = []
        var conditions: [String] = []
        let from: String
        let key: String
        var rank: String?
        if usesWords {
            from = "message_words CROSS JOIN message m ON m.id = message_words.rowid"
            key = "message_words.rowid"
            rank = "bm25(message_words, 1.0, 0.0)"
            conditions.append("message_words MATCH ?")
            arguments.append(pattern.joined(separator: " AND "))
        } else if !trigrams.isEmpty {
            from = "message_trigrams CROSS JOIN message m ON m.id = message_trigrams.rowid"
            key = "message_trigrams.rowid"
            rank = "bm25(message_trigrams)"
        } else if !short.isEmpty {
            from = "message_ideographs i CROSS JOIN message m ON m.id = i.id"
            key = "i.id"
            if let chats = scope.chats { conditions.append("i.chatID IN (\(Self.marks(chats.count)))"); arguments += chats }
        } else {
            from = "message m"
            key = "m.id"
        }
        if !trigrams.isEmpty {
            conditions.append(usesWords ? "m.id IN (SELECT rowid FROM message_trigrams WHERE message_trigrams MATCH ?)" : "message_trigrams MATCH ?")
            arguments.append(trigrams.joined(separator: " AND "))
        }
        for text in short {
            if usesWords || !trigrams.isEmpty { conditions.append("m.id IN (SELECT id FROM message_ideographs)") }
            conditions.append("instr(lower(m.body), ?) > 0")
            arguments.append(text)
        }
        conditions.append("m.deletedAt IS NULL AND m.noticeKind IS NULL")
        conditions.append("EXISTS (SELECT 1 FROM member WHERE member.chatID = m.chatID AND member.userID = ?)")
        arguments.append(search.viewer.rawValue)
        if let senders = scope.senders {
            conditions.append("m.senderID IN (\(Self.marks(senders.count)))")
            arguments += senders
        }
        if !search.rooms.isEmpty, let chats = scope.chats {
            conditions.append("m.chatID IN (\(Self.marks(chats.count)))")
            arguments += chats
        }
        if search.hasPhoto { conditions.append("m.photoID IS NOT NULL") }
        if let before = search.sentBefore {
            conditions.append("m.createdAt < ?")
            arguments.append(before.timeIntervalSince1970)
        }
        if let start = search.sentFrom {
            conditions.append("m.createdAt >= ?")
            arguments.append(start.timeIntervalSince1970)
        }
        var order = "\(key) DESC"
        var page = "LIMIT ?"
        switch search.order {
        case .newest:
            if let cut = search.olderThan {
                conditions.append("\(key) < ?")
                arguments.append(cut.rawValue)
            }
            arguments.append(search.limit + 1)
        case .best:
            if let rank { order = "\(rank), \(key) DESC" }
            page += " OFFSET ?"
            arguments.append(search.limit + 1)
            arguments.append(search.offset)
        }
        sql = "SELECT \(Columns.message(in: "m")) FROM \(from) WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) \(page)"
        self.arguments = StatementArguments(arguments.map { $0.databaseValue })
    }

    /// A term for FTS5: in double quotes, a double quote inside doubled.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }
}

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
            let wanted = Set(search.rooms.map(SearchText.fold))
            chats = rows.compactMap { row in (row[1] as String?).map(SearchText.fold).map(wanted.contains) == true ? row[0] as Int64 : nil }
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
