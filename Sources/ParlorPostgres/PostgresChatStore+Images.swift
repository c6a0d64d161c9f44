import Foundation
import Logging
import ParlorDomain
import PostgresNIO

// Images: a row per image, a row per version; the files are in the media folder, named by hash.

extension PostgresChatStore {
    /// Records an image whose files are written; inside the caller's transaction.
    static func insert(_ connection: PostgresConnection, _ image: NewImage, _ logger: Logger) async throws -> ImageID {
        let row = try await connection.row("""
            INSERT INTO image (ownerID, purpose, createdAt) VALUES (\(image.ownerID.rawValue), \(image.purpose.storedName), \(image.createdAt.timeIntervalSince1970))
            RETURNING id
            """, logger: logger)
        let id = ImageID(try row!.at(0, as: Int64.self))
        try await insert(connection, versions: image.versions, of: id, logger)
        return id
    }

    static func insert(_ connection: PostgresConnection, versions: [StoredImageVersion], of id: ImageID, _ logger: Logger) async throws {
        for version in versions {
            try await connection.run("""
                INSERT INTO imageVersion (imageID, role, format, width, height, hash, byteCount)
                VALUES (\(id.rawValue), \(version.role.rawValue), \(version.format.rawValue), \(Int64(version.width)), \(Int64(version.height)),
                    \(version.hash), \(Int64(version.byteCount)))
                """, logger: logger)
        }
    }

    public func imageHashes() async throws -> Set<String> {
        Set(try await database.rows("SELECT DISTINCT hash FROM imageVersion").map { try $0.at(0, as: String.self) })
    }

    public func pendingPhotos() async throws -> [PendingPhoto] {
        try await database.rows("SELECT id, original FROM image WHERE state = 'pending' ORDER BY id").map { row in
            PendingPhoto(imageID: ImageID(try row.at(0, as: Int64.self)), original: try row.at(1, as: String?.self) ?? "")
        }
    }

    public func pendingOriginal(of image: ImageID) async throws -> String? {
        try await database.rows("SELECT original FROM image WHERE id = \(image.rawValue) AND state = 'pending'").first.flatMap { row in
            try row.at(0, as: String?.self)
        }
    }

    public func finishPhoto(_ result: PhotoResult) async throws -> Message? {
        try await database.write { [logger] connection in
            guard let row = try await connection.row("""
                SELECT \(unescaped: Columns.message(in: "message")) FROM message JOIN image ON image.id = message.photoID
                WHERE image.id = \(result.imageID.rawValue) AND image.state = 'pending'
                FOR UPDATE
                """, logger: logger), let message = try Message(row: row), let pending = message.photo
            else { return nil }
            var photo = MessagePhoto(id: pending.id, state: .failed, width: pending.width, height: pending.height)
            if let versions = result.versions, let thumbnail = versions.first(where: { $0.role == .thumbnail }) {
                try await Self.insert(connection, versions: versions, of: pending.id, logger)
                photo = MessagePhoto(id: pending.id, state: .ready, width: thumbnail.width, height: thumbnail.height)
            }
            try await connection.run(
                "UPDATE image SET state = \(photo.state.rawValue), original = NULL WHERE id = \(pending.id.rawValue)", logger: logger
            )
            try await connection.run("""
                UPDATE message SET photoState = \(photo.state.rawValue), photoWidth = \(Int64(photo.width)), photoHeight = \(Int64(photo.height))
                WHERE id = \(message.id.rawValue)
                """, logger: logger)
            try await EventLogEntry.photoProcessed(message.id).append(connection, logger: logger)
            return message.with(photo: photo)
        }
    }

    public func photosAround(_ message: MessageID, in chat: ChatID) async throws -> PhotosAround {
        let chat = chat.rawValue, message = message.rawValue
        return try await database.read { [logger] connection in
            let previous = try await connection.row("""
                SELECT photoID FROM message WHERE chatID = \(chat) AND id < \(message) AND photoID IS NOT NULL ORDER BY id DESC LIMIT 1
                """, logger: logger).map { try $0.at(0, as: Int64.self) }
            let next = try await connection.row("""
                SELECT photoID FROM message WHERE chatID = \(chat) AND id > \(message) AND photoID IS NOT NULL ORDER BY id LIMIT 1
                """, logger: logger).map { try $0.at(0, as: Int64.self) }
            return PhotosAround(previous: previous.map { ImageID($0) }, next: next.map { ImageID($0) })
        }
    }

    public func image(_ id: ImageID, visibleTo viewer: UserID) async throws -> StoredImage? {
        let image = id.rawValue, person = viewer.rawValue
        return try await database.read { [logger] connection in
            guard let row = try await connection.row("""
                SELECT ownerID, purpose, state, (SELECT id FROM message WHERE photoID = image.id LIMIT 1) FROM image
                WHERE id = \(image) AND (ownerID = \(person) OR (purpose = 'avatar' AND EXISTS (
                    SELECT 1 FROM member mine JOIN member theirs ON theirs.chatID = mine.chatID
                    WHERE mine.userID = \(person) AND theirs.userID = image.ownerID))
                OR (purpose = 'message' AND EXISTS (
                    SELECT 1 FROM message JOIN member ON member.chatID = message.chatID
                    WHERE message.photoID = image.id AND member.userID = \(person)))
                OR (purpose = 'feedIcon' AND (EXISTS (
                    SELECT 1 FROM feedSubscription JOIN member ON member.chatID = feedSubscription.chatID
                    WHERE feedSubscription.iconID = image.id AND member.userID = \(person)) OR EXISTS (
                    SELECT 1 FROM message JOIN member ON member.chatID = message.chatID
                    WHERE message.feedIconID = image.id AND member.userID = \(person))))
                OR (purpose = 'linkPreview' AND EXISTS (
                    SELECT 1 FROM message JOIN member ON member.chatID = message.chatID
                    WHERE message.previewImageID = image.id AND member.userID = \(person))))
                """, logger: logger),
                let purpose = ImagePurpose(storedName: try row.at(1)), let state = PhotoState(rawValue: try row.at(2))
            else { return nil }
            let versions = try await connection.rows(
                "SELECT role, format, width, height, hash, byteCount FROM imageVersion WHERE imageID = \(image)", logger: logger
            ).compactMap { row -> StoredImageVersion? in
                guard let role = ImageRole(rawValue: try row.at(0)), let format = ImageFormat(rawValue: try row.at(1)) else { return nil }
                return StoredImageVersion(
                    role: role, format: format, width: Int(try row.at(2, as: Int64.self)), height: Int(try row.at(3, as: Int64.self)),
                    hash: try row.at(4), byteCount: Int(try row.at(5, as: Int64.self))
                )
            }
            return StoredImage(
                id: id, ownerID: UserID(try row.at(0, as: Int64.self)), purpose: purpose, versions: versions, state: state,
                messageID: try row.at(3, as: Int64?.self).map { MessageID($0) }
            )
        }
    }
}
