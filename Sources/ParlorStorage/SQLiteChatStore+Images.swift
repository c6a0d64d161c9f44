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
        for version in image.versions {
            try db.cachedStatement(sql: """
                INSERT INTO imageVersion (imageID, role, format, width, height, hash, byteCount) VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    id.rawValue, version.role.rawValue, version.format.rawValue, version.width, version.height, version.hash, version.byteCount,
                ])
        }
        return id
    }

    public func imageHashes() async throws -> Set<String> {
        try await pool.read { db in Set(try String.fetchAll(db, sql: "SELECT DISTINCT hash FROM imageVersion")) }
    }

    public func image(_ id: ImageID, visibleTo viewer: UserID) async throws -> StoredImage? {
        try await pool.read { db in
            // Their own, or an avatar of someone who shares a chat with them.
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT ownerID, purpose FROM image
                WHERE id = ? AND (ownerID = ? OR (purpose = 'avatar' AND EXISTS (
                    SELECT 1 FROM member mine JOIN member theirs ON theirs.chatID = mine.chatID
                    WHERE mine.userID = ? AND theirs.userID = image.ownerID)))
                """), arguments: [id.rawValue, viewer.rawValue, viewer.rawValue]),
                let purpose = ImagePurpose(storedName: row[1])
            else { return nil }
            let versions = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT role, format, width, height, hash, byteCount FROM imageVersion WHERE imageID = ?"),
                arguments: [id.rawValue]
            ).compactMap { row -> StoredImageVersion? in
                guard let role = ImageRole(rawValue: row[0]), let format = ImageFormat(rawValue: row[1]) else { return nil }
                return StoredImageVersion(role: role, format: format, width: row[2], height: row[3], hash: row[4], byteCount: row[5])
            }
            return StoredImage(id: id, ownerID: UserID(row[0] as Int64), purpose: purpose, versions: versions)
        }
    }
}
