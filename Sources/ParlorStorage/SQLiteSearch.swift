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
