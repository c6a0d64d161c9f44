import Foundation
import GRDB
import ParlorDomain

// Reading domain values out of rows, by column position: a lookup by name hashes and lowercases the
// name for every value, which was a fifth of the chat list's time. The column lists below fix the
// positions; a query selects `Columns.user` or `Columns.message` (or their `in:` forms, qualified by a table alias) and decodes from the index
// where that list starts.

extension User {
    /// From the eight columns of ``Columns/user(in:)``, starting at `start`.
    init(row: Row, at start: Int = 0) {
        self.init(
            id: UserID(row[start] as Int64),
            handle: row[start + 1],
            displayName: row[start + 2],
            timeZoneIdentifier: row[start + 3],
            localeIdentifier: row[start + 4],
            avatar: row.int64(start + 5).map { ImageID($0) },
            isBot: row[start + 6]
        )
    }
}

extension Message {
    /// From the seventeen columns of ``Columns/message(in:)``, starting at `start`; nil when the id is NULL
    /// (a LEFT JOIN with no match).
    init?(row: Row, at start: Int = 0) {
        guard let id = row.int64(start) else { return nil }
        var photo: MessagePhoto?
        if let photoID = row.int64(start + 8), let state = row.string(start + 9).flatMap(PhotoState.init(rawValue:)) {
            photo = MessagePhoto(id: ImageID(photoID), state: state, width: Int(row.int64(start + 10) ?? 1), height: Int(row.int64(start + 11) ?? 1))
        }
        self.init(
            id: MessageID(id),
            chatID: ChatID(row[start + 1] as Int64),
            senderID: UserID(row[start + 2] as Int64),
            body: row[start + 3],
            createdAt: Date(timeIntervalSince1970: row[start + 4]),
            editedAt: row.double(start + 5).map { Date(timeIntervalSince1970: $0) },
            replyTo: row.int64(start + 6).map { MessageID($0) },
            deletedAt: row.double(start + 7).map { Date(timeIntervalSince1970: $0) },
            photo: photo,
            feed: row.string(start + 12).map { source in
                FeedPost(
                    source: source, title: row.string(start + 13), link: row.string(start + 14),
                    date: row.double(start + 15).map { Date(timeIntervalSince1970: $0) },
                    icon: row.int64(start + 16).map { ImageID($0) }
                )
            }
        )
    }
}

enum Columns {
    /// The `message` columns in the order `Message(row:at:)` reads them, qualified by `table` when given.
    static func message(in table: String?) -> String {
        qualified([
            "id", "chatID", "senderID", "body", "createdAt", "editedAt", "replyToID", "deletedAt", "photoID", "photoState", "photoWidth", "photoHeight",
            "feedSource", "feedTitle", "feedLink", "feedDate", "feedIconID",
        ], by: table)
    }

    /// The `user` columns in the order `User(row:at:)` reads them, qualified by `table` when given.
    static func user(in table: String?) -> String {
        qualified(["id", "handle", "displayName", "timeZone", "locale", "avatarID", "isBot"], by: table)
    }

    static let message = message(in: nil)
    static let user = user(in: nil)

    private static func qualified(_ names: [String], by table: String?) -> String {
        let prefix = table.map { "\($0)." } ?? ""
        return names.map { prefix + $0 }.joined(separator: ", ")
    }
}

extension Row {
    // A NULL checked first, then the value read by GRDB's fast path for its type: decoding `as Int64?` goes
    // through a generic path that looks up `Optional`'s metadata at every call (a tenth of a conversation
    // page's CPU, for 100 messages' 17 columns).

    /// The integer in column `index`; nil for NULL.
    @inline(__always) func int64(_ index: Int) -> Int64? {
        hasNull(atIndex: index) ? nil : (self[index] as Int64)
    }

    /// The number in column `index`; nil for NULL.
    @inline(__always) func double(_ index: Int) -> Double? {
        hasNull(atIndex: index) ? nil : (self[index] as Double)
    }

    /// The text in column `index`; nil for NULL.
    @inline(__always) func string(_ index: Int) -> String? {
        hasNull(atIndex: index) ? nil : (self[index] as String)
    }
}
