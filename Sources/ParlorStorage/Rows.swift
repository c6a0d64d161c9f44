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
            avatar: (row[start + 5] as Int64?).map { ImageID($0) },
            isBot: row[start + 6]
        )
    }
}

extension Message {
    /// From the seventeen columns of ``Columns/message(in:)``, starting at `start`; nil when the id is NULL
    /// (a LEFT JOIN with no match).
    init?(row: Row, at start: Int = 0) {
        guard let id = row[start] as Int64? else { return nil }
        var photo: MessagePhoto?
        if let photoID = row[start + 8] as Int64?, let state = (row[start + 9] as String?).flatMap(PhotoState.init(rawValue:)) {
            photo = MessagePhoto(id: ImageID(photoID), state: state, width: row[start + 10] ?? 1, height: row[start + 11] ?? 1)
        }
        self.init(
            id: MessageID(id),
            chatID: ChatID(row[start + 1] as Int64),
            senderID: UserID(row[start + 2] as Int64),
            body: row[start + 3],
            createdAt: Date(timeIntervalSince1970: row[start + 4]),
            editedAt: (row[start + 5] as Double?).map { Date(timeIntervalSince1970: $0) },
            replyTo: (row[start + 6] as Int64?).map { MessageID($0) },
            deletedAt: (row[start + 7] as Double?).map { Date(timeIntervalSince1970: $0) },
            photo: photo,
            feed: (row[start + 12] as String?).map { source in
                FeedPost(
                    source: source, title: row[start + 13], link: row[start + 14],
                    date: (row[start + 15] as Double?).map { Date(timeIntervalSince1970: $0) },
                    icon: (row[start + 16] as Int64?).map { ImageID($0) }
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
