import Foundation
import ParlorDomain
import PostgresNIO

// Domain values out of rows, by column position, in the orders `Columns` lists (the SQLite store's orders).

enum Columns {
    static func message(in table: String? = nil) -> String {
        qualified([
            "id", "chatID", "senderID", "body", "createdAt", "editedAt", "replyToID", "deletedAt", "photoID", "photoState", "photoWidth", "photoHeight",
            "feedSource", "feedTitle", "feedLink", "feedDate", "feedIconID", "noticeKind", "noticeSubject", "noticeText",
            "previewURL", "previewTitle", "previewDescription", "previewSite", "previewRemoved", "previewImageID", "previewImageWidth",
            "previewImageHeight",
        ], by: table)
    }

    /// How many columns ``message(in:)`` lists.
    static let messageCount = 28

    static func user(in table: String? = nil) -> String {
        qualified(["id", "handle", "displayName", "timeZone", "locale", "avatarID", "isBot"], by: table)
    }

    static let message = message()
    static let user = user()

    private static func qualified(_ names: [String], by table: String?) -> String {
        let prefix = table.map { "\($0)." } ?? ""
        return names.map { prefix + $0 }.joined(separator: ", ")
    }
}

extension User {
    /// From the seven columns of ``Columns/user(in:)``, starting at `start`.
    init(row: PostgresRandomAccessRow, at start: Int = 0) throws {
        self.init(
            id: UserID(try row.at(start, as: Int64.self)),
            handle: try row.at(start + 1),
            displayName: try row.at(start + 2),
            timeZoneIdentifier: try row.at(start + 3),
            localeIdentifier: try row.at(start + 4),
            avatar: try row.at(start + 5, as: Int64?.self).map { ImageID($0) },
            isBot: try row.at(start + 6)
        )
    }
}

extension User {
    /// As ``init(row:at:)``; nil when the id is NULL (an outer join found nobody).
    init?(optionalRow row: PostgresRandomAccessRow, at start: Int) throws {
        guard try row.at(start, as: Int64?.self) != nil else { return nil }
        try self.init(row: row, at: start)
    }
}

extension Message {
    /// From the twenty-five columns of ``Columns/message(in:)``, starting at `start`; nil when the id is NULL.
    init?(row: PostgresRandomAccessRow, at start: Int = 0) throws {
        guard let id = try row.at(start, as: Int64?.self) else { return nil }
        var photo: MessagePhoto?
        if let photoID = try row.at(start + 8, as: Int64?.self),
           let state = try row.at(start + 9, as: String?.self).flatMap(PhotoState.init(rawValue:)) {
            photo = MessagePhoto(
                id: ImageID(photoID), state: state,
                width: Int(try row.at(start + 10, as: Int64?.self) ?? 1), height: Int(try row.at(start + 11, as: Int64?.self) ?? 1)
            )
        }
        var feed: FeedPost?
        if let source = try row.at(start + 12, as: String?.self) {
            feed = FeedPost(
                source: source, title: try row.at(start + 13), link: try row.at(start + 14),
                date: try row.at(start + 15, as: Double?.self).map { Date(timeIntervalSince1970: $0) },
                icon: try row.at(start + 16, as: Int64?.self).map { ImageID($0) }
            )
        }
        self.init(
            id: MessageID(id),
            chatID: ChatID(try row.at(start + 1, as: Int64.self)),
            senderID: UserID(try row.at(start + 2, as: Int64.self)),
            body: try row.at(start + 3),
            createdAt: Date(timeIntervalSince1970: try row.at(start + 4)),
            editedAt: try row.at(start + 5, as: Double?.self).map { Date(timeIntervalSince1970: $0) },
            replyTo: try row.at(start + 6, as: Int64?.self).map { MessageID($0) },
            deletedAt: try row.at(start + 7, as: Double?.self).map { Date(timeIntervalSince1970: $0) },
            photo: photo,
            feed: feed,
            notice: try row.at(start + 17, as: String?.self).flatMap(RoomNotice.Kind.init(rawValue:)).map { kind in
                RoomNotice(
                    kind: kind, subject: try row.at(start + 18, as: Int64?.self).map { UserID($0) }, text: try row.at(start + 19, as: String?.self)
                )
            },
            preview: try row.at(start + 24, as: Bool?.self) == true ? .removed : try row.at(start + 21, as: String?.self).map { title in
                LinkPreview(
                    url: try row.at(start + 20, as: String?.self) ?? "", title: title, description: try row.at(start + 22, as: String?.self),
                    siteName: try row.at(start + 23, as: String?.self),
                    image: try row.at(start + 25, as: Int64?.self).map { id in
                        PreviewImage(
                            id: ImageID(id), width: Int(try row.at(start + 26, as: Int32?.self) ?? 1), height: Int(try row.at(start + 27, as: Int32?.self) ?? 1)
                        )
                    }
                )
            }
        )
    }
}

extension ChatSummary {
    /// From the columns of the chat list's query, starting at `start`: the chat's id, last activity and the
    /// viewer's unread count, the contact (``Columns/user(in:)``, NULL in a room), the last message
    /// (``Columns/message(in:)``), the viewer's read mark, the chat's kind, name, topic and member count, and
    /// the last sender's name. Nil for a direct chat of two whose other member is gone.
    init?(row: PostgresRandomAccessRow, at start: Int = 0) throws {
        let after = start + 10 + Columns.messageCount
        let heading = try ChatHeading(row: row, at: after + 1, contactAt: start + 3)
        if heading.kind == .direct, heading.memberCount == 2, heading.contact == nil { return nil }
        self.init(
            chatID: ChatID(try row.at(start, as: Int64.self)),
            heading: heading,
            lastMessage: try Message(row: row, at: start + 10),
            lastSenderName: try row.at(after + 5, as: String?.self),
            unreadCount: Int(try row.at(start + 2, as: Int64.self)),
            lastActivity: Date(timeIntervalSince1970: try row.at(start + 1)),
            lastRead: try row.at(after, as: Int64?.self).flatMap { $0 > 0 ? MessageID($0) : nil },
            involvement: Involvement(rawValue: try row.at(after + 6, as: String.self)), mentionCount: Int(try row.at(after + 7, as: Int64.self))
        )
    }
}

extension ChatHeading {
    /// From a chat's kind, name, topic and member count at `start`, and the contact's columns at `contactAt`.
    init(row: PostgresRandomAccessRow, at start: Int, contactAt: Int) throws {
        self.init(
            kind: RoomKind(rawValue: try row.at(start, as: String.self)) ?? .direct, name: try row.at(start + 1, as: String?.self),
            topic: try row.at(start + 2, as: String?.self), memberCount: Int(try row.at(start + 3, as: Int64.self)),
            contact: try User(optionalRow: row, at: contactAt)
        )
    }
}
