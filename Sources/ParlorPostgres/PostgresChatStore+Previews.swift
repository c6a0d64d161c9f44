import Foundation
import Logging
import ParlorDomain
import PostgresNIO

// Link previews: the card of the page a message links to, kept on the message's row; each change in the event log.

extension PostgresChatStore {
    /// The message, its row locked to the end of the transaction.
    static func lockedMessage(_ connection: PostgresConnection, _ id: MessageID, _ logger: Logger) async throws -> Message? {
        try await connection.row("SELECT \(unescaped: Columns.message()) FROM message WHERE id = \(id.rawValue) FOR UPDATE", logger: logger)
            .flatMap { try Message(row: $0) }
    }

    public func recordPreview(_ result: PreviewResult) async throws -> Message? {
        try await database.write { [logger] connection in
            guard let message = try await Self.lockedMessage(connection, result.messageID, logger), !message.isDeleted, message.preview == nil,
                  message.body.contains(result.preview.url)
            else { return nil }
            let preview = result.preview
            // The picture is the sender's image, recorded with the card or not at all.
            var picture: PreviewImage?
            if !result.image.isEmpty {
                let image = NewImage(ownerID: message.senderID, purpose: .linkPreview, versions: result.image, createdAt: message.editedAt ?? message.createdAt)
                picture = result.picture(try await Self.insert(connection, image, logger))
            }
            try await connection.run("""
                UPDATE message SET previewURL = \(preview.url), previewTitle = \(preview.title), previewDescription = \(preview.description),
                    previewSite = \(preview.siteName), previewImageID = \(picture?.id.rawValue), previewImageWidth = \(picture.map { Int32(clamping: $0.width) }),
                    previewImageHeight = \(picture.map { Int32(clamping: $0.height) })
                WHERE id = \(message.id.rawValue)
                """, logger: logger)
            try await EventLogEntry.previewed(message.id).append(connection, logger: logger)
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
    static func dropCardPicture(_ connection: PostgresConnection, of old: Message, _ logger: Logger) async throws {
        guard let picture = old.preview?.image else { return }
        try await connection.run("DELETE FROM image WHERE id = \(picture.id.rawValue)", logger: logger)
    }

    public func removePreview(_ removal: PreviewRemoval) async throws -> Message {
        try await database.write { [logger] connection in
            guard let message = try await Self.lockedMessage(connection, removal.messageID, logger), let preview = message.preview, !preview.isRemoved else {
                throw Refusal.notFound
            }
            guard message.senderID == removal.requesterID else { throw Refusal.notYourMessage }
            try await connection.run("UPDATE message SET \(unescaped: Self.noCard), previewRemoved = TRUE WHERE id = \(message.id.rawValue)", logger: logger)
            try await Self.dropCardPicture(connection, of: message, logger)
            try await EventLogEntry.previewed(message.id).append(connection, logger: logger)
            return message.with(preview: .removed)
        }
    }
}
