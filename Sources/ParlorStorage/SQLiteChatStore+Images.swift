import Foundation
import GRDB
import ParlorDomain

// Images: a row per image, a row per version; the files are in the media folder, named by hash.

extension SQLiteChatStore {
    /// Records an image whose files are written; inside the caller's transaction.
    static func insert(_ db: Database, _ image: NewImage) throws -> ImageID {
        try db.cachedStatement(sql: "INSERT INTO image (ownerID, purpose, createdAt) VALUES (?, ?, ?)")
            .execute(arguments: [image.ownerID.rawValue, image.purpose.storedName, image.createdAt.timeIntervalSince1970])
        let id = ImageID(db.lastInsertedRowID)
        try insert(db, versions: image.versions, of: id)
        return id
    }

    /// Records the versions of an image whose files are written; inside the caller's transaction.
    static func insert(_ db: Database, versions: [StoredImageVersion], of id: ImageID) throws {
        for version in versions {
            try db.cachedStatement(sql: """
                INSERT INTO imageVersion (imageID, role, format, width, height, hash, byteCount) VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    id.rawValue, version.role.rawValue, version.format.rawValue, version.width, version.height, version.hash, version.byteCount,
                ])
        }
    }

    /// An image that goes (a deleted message's photo, a card's picture): its versions now, its files with the next sweep
    /// of the media folder. Its row stays, marked gone, so SQLite never gives its id to a later image: browsers keep an
    /// image's file for a year under its id, and would show the old picture for the new one.
    static func forget(_ db: Database, image id: ImageID) throws {
        try db.cachedStatement(sql: "DELETE FROM imageVersion WHERE imageID = ?").execute(arguments: [id.rawValue])
        try db.cachedStatement(sql: "UPDATE image SET state = 'gone', original = NULL WHERE id = ?").execute(arguments: [id.rawValue])
    }

    public func imageHashes() async throws -> Set<String> {
        try await read { db in Set(try String.fetchAll(db, sql: "SELECT DISTINCT hash FROM imageVersion")) }
    }

    public func pendingPhotos() async throws -> [PendingPhoto] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, original FROM image WHERE state = 'pending' ORDER BY id").map { row in
                PendingPhoto(imageID: ImageID(row[0] as Int64), original: row[1] ?? "")
            }
        }
    }

    public func pendingOriginal(of image: ImageID) async throws -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT original FROM image WHERE id = ? AND state = 'pending'", arguments: [image.rawValue])
        }
    }

    public func finishPhoto(_ result: PhotoResult) async throws -> Message? {
        try await write { db in
            guard let message = try db.cachedStatement(sql: """
                    SELECT \(Columns.message(in: "message")) FROM message JOIN image ON image.id = message.photoID
                    WHERE image.id = ? AND image.state = 'pending'
                    """).first(arguments: [result.imageID.rawValue], { Message($0, at: 0) }),
                  let pending = message.photo
            else { return nil }
            var photo = MessagePhoto(id: pending.id, state: .failed, width: pending.width, height: pending.height)
            if let versions = result.versions, let thumbnail = versions.first(where: { $0.role == .thumbnail }) {
                try Self.insert(db, versions: versions, of: pending.id)
                photo = MessagePhoto(id: pending.id, state: .ready, width: thumbnail.width, height: thumbnail.height)
            }
            try db.cachedStatement(sql: "UPDATE image SET state = ?, original = NULL WHERE id = ?")
                .execute(arguments: [photo.state.rawValue, pending.id.rawValue])
            try db.cachedStatement(sql: "UPDATE message SET photoState = ?, photoWidth = ?, photoHeight = ? WHERE id = ?")
                .execute(arguments: [photo.state.rawValue, photo.width, photo.height, message.id.rawValue])
            return message.with(photo: photo)
        }
    }

    public func photosAround(_ message: MessageID, in chat: ChatID) async throws -> PhotosAround {
        try await read { db -> PhotosAround in
            // Both read the chat's photos by their own index, however many messages lie between.
            let previous: Int64? = try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT photoID FROM message WHERE chatID = ? AND id < ? AND photoID IS NOT NULL ORDER BY id DESC LIMIT 1
                """), arguments: [chat.rawValue, message.rawValue])
            let next: Int64? = try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT photoID FROM message WHERE chatID = ? AND id > ? AND photoID IS NOT NULL ORDER BY id LIMIT 1
                """), arguments: [chat.rawValue, message.rawValue])
            return PhotosAround(previous: previous.map { ImageID($0) }, next: next.map { ImageID($0) })
        }
    }

    public func image(_ id: ImageID, visibleTo viewer: UserID) async throws -> StoredImage? {
        try await read { db in
            // Their own, an avatar of someone who shares a chat with them, or a photo in one of their chats.
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT ownerID, purpose, state, (SELECT id FROM message WHERE photoID = image.id) FROM image
                WHERE id = ? AND (ownerID = ? OR (purpose = 'avatar' AND EXISTS (
                    SELECT 1 FROM member mine JOIN member theirs ON theirs.chatID = mine.chatID
                    WHERE mine.userID = ? AND theirs.userID = image.ownerID))
                OR (purpose = 'message' AND EXISTS (
                    SELECT 1 FROM message JOIN member ON member.chatID = message.chatID
                    WHERE message.photoID = image.id AND member.userID = ?))
                OR (purpose = 'feedIcon' AND (EXISTS (
                    SELECT 1 FROM feedSubscription JOIN member ON member.chatID = feedSubscription.chatID
                    WHERE feedSubscription.iconID = image.id AND member.userID = ?) OR EXISTS (
                    SELECT 1 FROM message JOIN member ON member.chatID = message.chatID
                    WHERE message.feedIconID = image.id AND member.userID = ?)))
                OR (purpose = 'linkPreview' AND EXISTS (
                    SELECT 1 FROM message JOIN member ON member.chatID = message.chatID
                    WHERE message.previewImageID = image.id AND member.userID = ?)))
                """), arguments: [id.rawValue, viewer.rawValue, viewer.rawValue, viewer.rawValue, viewer.rawValue, viewer.rawValue, viewer.rawValue]),
                let purpose = ImagePurpose(storedName: row[1]), let state = PhotoState(rawValue: row[2])
            else { return nil }
            let versions = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT role, format, width, height, hash, byteCount FROM imageVersion WHERE imageID = ?"),
                arguments: [id.rawValue]
            ).compactMap { row -> StoredImageVersion? in
                guard let role = ImageRole(rawValue: row[0]), let format = ImageFormat(rawValue: row[1]) else { return nil }
                return StoredImageVersion(role: role, format: format, width: row[2], height: row[3], hash: row[4], byteCount: row[5])
            }
            return StoredImage(
                id: id, ownerID: UserID(row[0] as Int64), purpose: purpose, versions: versions, state: state,
                messageID: (row[3] as Int64?).map { MessageID($0) }
            )
        }
    }
}
