import Foundation
import GRDB
import ParlorDomain

// Link previews: the card of the page a message links to, kept on the message's row.

extension SQLiteChatStore {
    public func recordPreview(_ result: PreviewResult) async throws -> Message? {
        try await pool.write { db in
            guard let message = try Self.message(db, result.messageID), !message.isDeleted, message.preview == nil,
                  message.body.contains(result.preview.url)
            else { return nil }
            let preview = result.preview
            try db.cachedStatement(sql: """
                UPDATE message SET previewURL = ?, previewTitle = ?, previewDescription = ?, previewSite = ? WHERE id = ?
                """).execute(arguments: [preview.url, preview.title, preview.description, preview.siteName, message.id.rawValue])
            return message.with(preview: LinkPreview(url: preview.url, title: preview.title, description: preview.description, siteName: preview.siteName))
        }
    }

    public func removePreview(_ removal: PreviewRemoval) async throws -> Message {
        try await pool.write { db in
            guard let message = try Self.message(db, removal.messageID), let preview = message.preview, !preview.isRemoved else {
                throw Refusal.notFound
            }
            guard message.senderID == removal.requesterID else { throw Refusal.notYourMessage }
            try db.cachedStatement(sql: """
                UPDATE message SET previewURL = NULL, previewTitle = NULL, previewDescription = NULL, previewSite = NULL, previewRemoved = 1
                WHERE id = ?
                """).execute(arguments: [message.id.rawValue])
            return message.with(preview: .removed)
        }
    }
}
