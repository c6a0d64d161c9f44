import Foundation
import GRDB
import GRDBSQLite
import ParlorDomain

/// The current row of a statement, read column by column through SQLite's own functions. The screens'
/// reads (a hundred rows of twenty-odd columns per page) go through it: GRDB's `Row` checks and converts each
/// value through generic code, and `fetchAll` copies every value into an array of its own first, which
/// together were a fifth of a conversation page built from the store.
struct StatementRow {
    private let handle: SQLiteStatement

    init(_ statement: Statement) {
        handle = statement.sqliteStatement
    }

    func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    func int64OrNil(_ index: Int) -> Int64? { isNull(index) ? nil : int64(index) }

    func double(_ index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    func doubleOrNil(_ index: Int) -> Double? { isNull(index) ? nil : double(index) }

    func date(_ index: Int) -> Date { Date(timeIntervalSince1970: double(index)) }

    func dateOrNil(_ index: Int) -> Date? { isNull(index) ? nil : date(index) }

    func bool(_ index: Int) -> Bool { int64(index) != 0 }

    /// The text in the column, as SQLite holds it (UTF-8; anything else repaired, never trusted).
    func string(_ index: Int) -> String {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func stringOrNil(_ index: Int) -> String? { isNull(index) ? nil : string(index) }
}

extension Statement {
    /// Steps through what the statement selects with `arguments`, handing each row to `body`.
    func forEachRow(arguments: StatementArguments, _ body: (StatementRow) throws -> Void) throws {
        let rows = try Row.fetchCursor(self, arguments: arguments)
        let row = StatementRow(self)
        while try rows.next() != nil { try body(row) }
    }

    /// What `make` gives for the first row selected with `arguments`; nil when there is none (or it gives nil).
    func first<Value>(arguments: StatementArguments, _ make: (StatementRow) throws -> Value?) throws -> Value? {
        let rows = try Row.fetchCursor(self, arguments: arguments)
        guard try rows.next() != nil else { return nil }
        return try make(StatementRow(self))
    }

    /// What `make` gives for every row selected with `arguments`, in order, leaving out the nils.
    func all<Value>(arguments: StatementArguments, _ make: (StatementRow) throws -> Value?) throws -> [Value] {
        var values: [Value] = []
        try forEachRow(arguments: arguments) { row in if let value = try make(row) { values.append(value) } }
        return values
    }
}

extension User {
    /// From the seven columns of ``Columns/user(in:)``, starting at `start`.
    init(_ row: StatementRow, at start: Int) {
        self.init(
            id: UserID(row.int64(start)),
            handle: row.string(start + 1),
            displayName: row.string(start + 2),
            timeZoneIdentifier: row.string(start + 3),
            localeIdentifier: row.string(start + 4),
            avatar: row.int64OrNil(start + 5).map { ImageID($0) },
            isBot: row.bool(start + 6)
        )
    }
}

extension User {
    /// From the seven columns of ``Columns/user(in:)`` at `start`; nil when the id is NULL (an outer join).
    init?(optional row: StatementRow, at start: Int) {
        guard !row.isNull(start) else { return nil }
        self.init(row, at: start)
    }
}

extension Message {
    /// From the twenty-five columns of ``Columns/message(in:)``, starting at `start`; nil when the id is NULL
    /// (a LEFT JOIN with no match).
    init?(_ row: StatementRow, at start: Int) {
        guard let id = row.int64OrNil(start) else { return nil }
        var photo: MessagePhoto?
        if let photoID = row.int64OrNil(start + 8), let state = row.stringOrNil(start + 9).flatMap(PhotoState.init(rawValue:)) {
            photo = MessagePhoto(
                id: ImageID(photoID), state: state, width: Int(row.int64OrNil(start + 10) ?? 1), height: Int(row.int64OrNil(start + 11) ?? 1)
            )
        }
        self.init(
            id: MessageID(id),
            chatID: ChatID(row.int64(start + 1)),
            senderID: UserID(row.int64(start + 2)),
            body: row.string(start + 3),
            createdAt: row.date(start + 4),
            editedAt: row.dateOrNil(start + 5),
            replyTo: row.int64OrNil(start + 6).map { MessageID($0) },
            deletedAt: row.dateOrNil(start + 7),
            photo: photo,
            feed: row.stringOrNil(start + 12).map { source in
                FeedPost(
                    source: source, title: row.stringOrNil(start + 13), link: row.stringOrNil(start + 14), date: row.dateOrNil(start + 15),
                    icon: row.int64OrNil(start + 16).map { ImageID($0) }
                )
            },
            notice: row.stringOrNil(start + 17).flatMap(RoomNotice.Kind.init(rawValue:)).map { kind in
                RoomNotice(kind: kind, subject: row.int64OrNil(start + 18).map { UserID($0) }, text: row.stringOrNil(start + 19))
            },
            preview: row.bool(start + 24) ? .removed : row.stringOrNil(start + 21).map { title in
                LinkPreview(
                    url: row.string(start + 20), title: title, description: row.stringOrNil(start + 22), siteName: row.stringOrNil(start + 23),
                    image: row.int64OrNil(start + 25).map { id in
                        PreviewImage(id: ImageID(id), width: Int(row.int64OrNil(start + 26) ?? 1), height: Int(row.int64OrNil(start + 27) ?? 1))
                    }
                )
            }
        )
    }
}
