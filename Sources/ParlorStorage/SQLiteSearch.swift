import Foundation
import GRDB
import ParlorDomain

/// A search turned into one SQLite statement. The words go to FTS5 as a pattern Parlor writes from the parsed
/// query, every word in double quotes (so nothing a person types is read as FTS5 syntax) and bound as a value,
/// never spliced into the SQL. The statement walks the index newest first (or by rank) and keeps only messages
/// of chats the viewer is a member of, so a page of results is the viewer's first results, not a top-N filtered.
struct SQLiteSearch {
    /// `GLOB` for text with a Han, kana or Hangul character: the ranges of ``SearchText/isIdeographic(_:)``.
    static let ideographicGlob = "*[\u{1100}-\u{11FF}\u{2E80}-\u{2FDF}\u{3040}-\u{30FF}\u{3100}-\u{31FF}\u{3400}-\u{4DBF}\u{4E00}-\u{9FFF}\u{A960}-\u{A97F}\u{AC00}-\u{D7AF}\u{F900}-\u{FAFF}\u{FF66}-\u{FF9F}\u{20000}-\u{3134F}]*"

    let sql: String
    let arguments: StatementArguments

    /// `rooms`: the ids `in:` names among the viewer's chats (nil without `in:`).
    init(_ search: MessageSearch, rooms: [Int64]?) {
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
        var arguments: [any DatabaseValueConvertible] = []
        var conditions: [String] = []
        let from: String
        let key: String
        var rank: String?
        if !words.isEmpty {
            from = "message_words CROSS JOIN message m ON m.id = message_words.rowid"
            key = "message_words.rowid"
            rank = "message_words.rank"
            conditions.append("message_words MATCH ?")
            arguments.append(words.joined(separator: " AND "))
        } else if !trigrams.isEmpty {
            from = "message_trigrams CROSS JOIN message m ON m.id = message_trigrams.rowid"
            key = "message_trigrams.rowid"
            rank = "message_trigrams.rank"
        } else if !short.isEmpty {
            from = "message_ideographs i CROSS JOIN message m ON m.id = i.id"
            key = "i.id"
        } else {
            from = "message m"
            key = "m.id"
        }
        if !trigrams.isEmpty {
            if words.isEmpty {
                conditions.append("message_trigrams MATCH ?")
            } else {
                conditions.append("m.id IN (SELECT rowid FROM message_trigrams WHERE message_trigrams MATCH ?)")
            }
            arguments.append(trigrams.joined(separator: " AND "))
        }
        for text in short {
            if !words.isEmpty || !trigrams.isEmpty { conditions.append("m.id IN (SELECT id FROM message_ideographs)") }
            conditions.append("instr(lower(m.body), ?) > 0")
            arguments.append(text)
        }
        conditions.append("m.deletedAt IS NULL AND m.noticeKind IS NULL")
        conditions.append("EXISTS (SELECT 1 FROM member WHERE member.chatID = m.chatID AND member.userID = ?)")
        arguments.append(search.viewer.rawValue)
        if !search.from.isEmpty {
            conditions.append("m.senderID IN (SELECT id FROM user WHERE handle IN (\(Self.marks(search.from.count))))")
            arguments += search.from
        }
        if let rooms {
            conditions.append("m.chatID IN (\(Self.marks(rooms.count)))")
            arguments += rooms
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
        arguments.append(search.limit + 1)
        switch search.order {
        case .newest:
            if let cut = search.olderThan {
                conditions.append("\(key) < ?")
                arguments.insert(cut.rawValue, at: arguments.count - 1)
            }
        case .best:
            if let rank { order = "\(rank), \(key) DESC" }
            page += " OFFSET ?"
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
        return try await readNowOrInPool { db in
            var rooms: [Int64]?
            if !search.rooms.isEmpty {
                let wanted = Set(search.rooms.map(SearchText.fold))
                let named = try Row.fetchAll(db, sql: """
                    SELECT chat.id, chat.name FROM member JOIN chat ON chat.id = member.chatID
                    WHERE member.userID = ? AND chat.name IS NOT NULL
                    """, arguments: [search.viewer.rawValue])
                rooms = named.compactMap { row in wanted.contains(SearchText.fold(row[1] as String)) ? row[0] as Int64 : nil }
                if rooms?.isEmpty == true { return .none }
            }
            let statement = SQLiteSearch(search, rooms: rooms)
            var messages: [Message] = []
            try db.cachedStatement(sql: statement.sql).forEachRow(arguments: statement.arguments) { row in
                if let message = Message(row, at: 0) { messages.append(message) }
            }
            return SearchResults(messages: Array(messages.prefix(search.limit)), hasMore: messages.count > search.limit)
        }
    }

    /// Indexes for search the messages stored before the search migration, a batch per transaction, newest last;
    /// `progress` hears how far (messages indexed, of how many). Nothing to do once done.
    static func indexForSearch(_ pool: DatabasePool, batch: Int = 20_000, progress: ((Int, Int) -> Void)?) throws {
        guard let (done, newest) = try pool.read({ db in
            try Row.fetchOne(db, sql: "SELECT doneThrough, newest FROM searchBackfill").map { ($0[0] as Int64, $0[1] as Int64) }
        }), done < newest else { return }
        var through = done
        while through < newest {
            let next = min(newest, through + Int64(batch))
            try pool.write { db in
                let ideographic = SQLiteSearch.ideographicGlob
                try db.execute(sql: "INSERT INTO message_words(rowid, body) SELECT id, body FROM message WHERE id > ? AND id <= ?", arguments: [through, next])
                try db.execute(
                    sql: "INSERT INTO message_trigrams(rowid, body) SELECT id, body FROM message WHERE id > ? AND id <= ? AND body GLOB ?",
                    arguments: [through, next, ideographic]
                )
                try db.execute(
                    sql: "INSERT INTO message_ideographs(id) SELECT id FROM message WHERE id > ? AND id <= ? AND body GLOB ?", arguments: [through, next, ideographic]
                )
                try db.execute(sql: "UPDATE searchBackfill SET doneThrough = ?", arguments: [next])
            }
            through = next
            progress?(Int(through), Int(newest))
        }
    }
}
