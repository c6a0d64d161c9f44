import Foundation
import GRDB
import ParlorDomain

// Link previews: the card of the page a message links to, kept on the message's row.

extension SQLiteChatStore {
    public func recordPreview(_ result: PreviewResult) async throws -> Message? {
        try await write { db in
            guard let message = try Self.message(db, result.messageID), !message.isDeleted, message.preview == nil,
                  message.body.contains(result.preview.url)
            else { return nil }
            let preview = result.preview
            // The picture is the sender's image, recorded with the card or not at all.
            var picture: PreviewImage?
            if !result.image.isEmpty {
                let id = try Self.insert(db, NewImage(ownerID: message.senderID, purpose: .linkPreview, versions: result.image, createdAt: message.editedAt ?? message.createdAt))
                picture = result.picture(id)
            }
            try db.cachedStatement(sql: """
                UPDATE message SET previewURL = ?, previewTitle = ?, previewDescription = ?, previewSite = ?, previewImageID = ?,
                    previewImageWidth = ?, previewImageHeight = ?
                WHERE id = ?
                """).execute(arguments: [
                    preview.url, preview.title, preview.description, preview.siteName, picture?.id.rawValue, picture?.width, picture?.height,
                    message.id.rawValue,
                ])
            return message.with(preview: LinkPreview(
                url: preview.url, title: preview.title, description: preview.description, siteName: preview.siteName, image: picture
            ))
        }
    }

    /// The columns' values of a message without a card (a removed one stays marked removed).
    static let noCard = """
        previewURL = NULL, previewTitle = NULL, previewDescription = NULL, previewSite = NULL, previewImageID = NULL, previewImageWidth = NULL,
        previewImageHeight = NULL
        """

    /// The picture of the card `old` had goes with its card: its row now, its files with the next sweep of the media folder.
    static func dropCardPicture(_ db: Database, of old: Message) throws {
        guard let picture = old.preview?.image else { return }
        try Self.forget(db, image: picture.id)
    }

    public func removePreview(_ removal: PreviewRemoval) async throws -> Message {
        try await write { db in
            guard let message = try Self.message(db, removal.messageID), let preview = message.preview, !preview.isRemoved else {
                throw Refusal.notFound
            }
            guard message.senderID == removal.requesterID else { throw Refusal.notYourMessage }
            try db.cachedStatement(sql: "UPDATE message SET \(Self.noCard), previewRemoved = 1 WHERE id = ?").execute(arguments: [message.id.rawValue])
            try Self.dropCardPicture(db, of: message)
            return message.with(preview: .removed)
        }
    }
}
