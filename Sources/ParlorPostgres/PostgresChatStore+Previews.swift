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
            try await connection.run("""
                UPDATE message SET previewURL = \(preview.url), previewTitle = \(preview.title), previewDescription = \(preview.description),
                    previewSite = \(preview.siteName)
                WHERE id = \(message.id.rawValue)
                """, logger: logger)
            try await EventLogEntry.previewed(message.id).append(connection, logger: logger)
            return message.with(preview: LinkPreview(url: preview.url, title: preview.title, description: preview.description, siteName: preview.siteName))
        }
    }

    public func removePreview(_ removal: PreviewRemoval) async throws -> Message {
        try await database.write { [logger] connection in
            guard let message = try await Self.lockedMessage(connection, removal.messageID, logger), let preview = message.preview, !preview.isRemoved else {
                throw Refusal.notFound
            }
            guard message.senderID == removal.requesterID else { throw Refusal.notYourMessage }
            try await connection.run("""
                UPDATE message SET previewURL = NULL, previewTitle = NULL, previewDescription = NULL, previewSite = NULL, previewRemoved = TRUE
                WHERE id = \(message.id.rawValue)
                """, logger: logger)
            try await EventLogEntry.previewed(message.id).append(connection, logger: logger)
            return message.with(preview: .removed)
        }
    }
}
