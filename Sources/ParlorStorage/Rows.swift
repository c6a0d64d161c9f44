import Foundation
import GRDB
import ParlorDomain

// Reading domain values out of rows. Columns are named in the queries that select them.

extension User {
    /// From the `user` columns, optionally prefixed ("contact_").
    init(row: Row, prefix: String = "") {
        self.init(
            id: UserID(row[prefix + "id"] as Int64),
            handle: row[prefix + "handle"],
            displayName: row[prefix + "displayName"],
            timeZoneIdentifier: row[prefix + "timeZone"],
            localeIdentifier: row[prefix + "locale"],
            avatar: (row[prefix + "avatarID"] as Int64?).map { ImageID($0) },
            isBot: row[prefix + "isBot"]
        )
    }
}

extension Message {
    /// From the `message` columns, optionally prefixed ("last_"); nil when the id column is NULL (a LEFT JOIN with no match).
    init?(row: Row, prefix: String = "") {
        guard let id = row[prefix + "id"] as Int64? else { return nil }
        self.init(
            id: MessageID(id),
            chatID: ChatID(row[prefix + "chatID"] as Int64),
            senderID: UserID(row[prefix + "senderID"] as Int64),
            body: row[prefix + "body"],
            createdAt: Date(timeIntervalSince1970: row[prefix + "createdAt"]),
            editedAt: (row[prefix + "editedAt"] as Double?).map { Date(timeIntervalSince1970: $0) },
            replyTo: (row[prefix + "replyToID"] as Int64?).map { MessageID($0) }
        )
    }
}

enum Columns {
    static let message = "id, chatID, senderID, body, createdAt, editedAt, replyToID"
    static let user = "id, handle, displayName, timeZone, locale, avatarID, isBot"
}
