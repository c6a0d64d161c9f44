import Foundation
import Logging
import ParlorDomain
import PostgresNIO

/// A search turned into one PostgreSQL statement over `searchText` (a message's words as ``SearchText`` reads
/// them) and `searchWords` (those words as a `tsvector`). Every value a person typed is bound, never spliced:
/// words as a `tsquery` Parlor writes from the parsed query (each word quoted, words in a row joined by `<->`,
/// the last of a prefix term with `:*`; `websearch_to_tsquery`'s meaning plus prefixes), substrings with `LIKE`
/// on the trigram index.
/// Membership is a condition of the statement, so a page of results is the viewer's first results.
enum PostgresSearch {
    /// A regular expression matching text with a Han, kana or Hangul character (``SearchText/isIdeographic(_:)``),
    /// as an SQL literal: the trigram index holds only such messages.
    static let ideographicClass =
        "'[\u{1100}-\u{11FF}\u{2E80}-\u{2FDF}\u{3040}-\u{30FF}\u{3100}-\u{31FF}\u{3400}-\u{4DBF}\u{4E00}-\u{9FFF}\u{A960}-\u{A97F}\u{AC00}-\u{D7AF}\u{F900}-\u{FAFF}\u{FF66}-\u{FF9F}\u{20000}-\u{3134F}]'"

    /// `rooms`: the ids `in:` names among the viewer's chats (nil without `in:`).
    static func query(_ search: MessageSearch, rooms: [Int64]?) throws -> PostgresQuery {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
            try binds.append(value)
            return "$\(binds.count)"
        }
        var lexemes: [String] = []
        var conditions: [String] = []
        for term in search.terms {
            switch term {
            case .prefix(let parts), .phrase(let parts):
                // Words in a row: `<->`, the last of a prefix term with `:*`.
                let isPrefix = if case .prefix = term { true } else { false }
                lexemes.append(parts.enumerated().map { index, part in
                    quoted(part) + (isPrefix && index == parts.count - 1 ? ":*" : "")
                }.joined(separator: " <-> "))
            case .substring(let text):
                let folded = SearchText.searchable(text)
                guard !folded.isEmpty else { continue }
                conditions.append("m.searchText ~ \(ideographicClass) AND m.searchText LIKE \(try bind("%" + folded + "%"))")
            }
        }
        var rank: String?
        if !lexemes.isEmpty {
            let words = try bind(lexemes.map { "(\($0))" }.joined(separator: " & "))
            conditions.insert("m.searchWords @@ \(words)::tsquery", at: 0)
            rank = "ts_rank(m.searchWords, \(words)::tsquery) DESC"
        }
        conditions.append("m.deletedAt IS NULL AND m.noticeKind IS NULL")
        conditions.append("EXISTS (SELECT 1 FROM member WHERE member.chatID = m.chatID AND member.userID = \(try bind(search.viewer.rawValue)))")
        if !search.from.isEmpty {
            conditions.append("m.senderID IN (SELECT id FROM account WHERE lower(handle) = ANY(\(try bind(search.from))))")
        }
        if let rooms { conditions.append("m.chatID = ANY(\(try bind(rooms)))") }
        if search.hasPhoto { conditions.append("m.photoID IS NOT NULL") }
        if let before = search.sentBefore { conditions.append("m.createdAt < \(try bind(before.timeIntervalSince1970))") }
        if let start = search.sentFrom { conditions.append("m.createdAt >= \(try bind(start.timeIntervalSince1970))") }
        var order = "m.id DESC"
        var page = ""
        switch search.order {
        case .newest:
            if let cut = search.olderThan { conditions.append("m.id < \(try bind(cut.rawValue))") }
            page = "LIMIT \(try bind(Int64(search.limit + 1)))"
        case .best:
            if let rank { order = "\(rank), m.id DESC" }
            page = "LIMIT \(try bind(Int64(search.limit + 1))) OFFSET \(try bind(Int64(search.offset)))"
        }
        let sql = "SELECT \(Columns.message(in: "m")) FROM message m WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) \(page)"
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// A lexeme of a `tsquery`, quoted (its words hold letters and numbers only; a quote would be doubled).
    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Writes `searchText` for the messages stored before search existed, a batch per transaction; several
    /// instances starting together share the work (rows one of them holds are passed over by the others).
    static func indexStoredMessages(_ database: PostgresDatabase, batch: Int = 2_000, progress: (@Sendable (Int, Int) -> Void)?) async throws {
        let logger = database.logger
        let total = try await database.single { connection in
            try await connection.row("SELECT count(*) FROM message WHERE searchText IS NULL", logger: logger)?.at(0, as: Int64.self) ?? 0
        }
        guard total > 0 else { return }
        var done = 0
        while true {
            let indexed = try await database.write { connection in
                let rows = try await connection.rows(
                    "SELECT id, body FROM message WHERE searchText IS NULL ORDER BY id LIMIT \(Int64(batch)) FOR UPDATE SKIP LOCKED", logger: logger
                )
                guard !rows.isEmpty else { return 0 }
                let ids = try rows.map { try $0.at(0, as: Int64.self) }
                let texts = try rows.map { SearchText.searchable(try $0.at(1, as: String.self)) }
                try await connection.run("""
                    UPDATE message AS m SET searchText = v.text FROM unnest(\(ids), \(texts)) AS v(id, text) WHERE m.id = v.id
                    """, logger: logger)
                return rows.count
            }
            guard indexed > 0 else { break }
            done += indexed
            progress?(min(done, Int(total)), Int(total))
        }
    }
}

extension PostgresChatStore: SearchStore {
    public func search(_ search: MessageSearch) async throws -> SearchResults {
        guard !search.isEmpty else { return .none }
        return try await database.read { [logger] connection in
            var rooms: [Int64]?
            if !search.rooms.isEmpty {
                let named = try await connection.rows("""
                    SELECT chat.id, chat.name FROM member JOIN chat ON chat.id = member.chatID
                    WHERE member.userID = \(search.viewer.rawValue) AND chat.name IS NOT NULL
                    """, logger: logger)
                rooms = try named.compactMap { row in search.namesRoom(try row.at(1, as: String.self)) ? try row.at(0, as: Int64.self) : nil }
                if rooms?.isEmpty == true { return .none }
            }
            let rows = try await connection.rows(try PostgresSearch.query(search, rooms: rooms), logger: logger)
            let messages = try rows.prefix(search.limit).compactMap { try Message(row: $0) }
            var people: [UserID: User] = [:]
            for id in Set(messages.map(\.senderID)) { people[id] = try await Self.user(connection, id, logger) }
            var headings: [ChatID: ChatHeading] = [:]
            for id in Set(messages.map(\.chatID)) {
                // A room by its row (the room of everyone has thousands of members), a direct chat by its people.
                guard let row = try await connection.row("SELECT kind, name, topic, memberCount FROM chat WHERE id = \(id.rawValue)", logger: logger)
                else { continue }
                let kind = RoomKind(rawValue: try row.at(0, as: String.self)) ?? .direct
                if kind != .direct {
                    headings[id] = ChatHeading(
                        kind: kind, name: try row.at(1, as: String?.self), topic: try row.at(2, as: String?.self), memberCount: Int(try row.at(3, as: Int64.self)),
                        contact: nil
                    )
                } else if let chat = try await Self.chat(connection, id, logger) {
                    var contact: User?
                    if let other = chat.contact(of: search.viewer) { contact = try await Self.user(connection, other, logger) }
                    headings[id] = chat.heading(contact: contact, others: try await Self.others(connection, chat, viewer: search.viewer, logger))
                }
            }
            return SearchResults(messages: messages, hasMore: rows.count > search.limit, headings: headings, people: people)
        }
    }
}
