import Foundation
import Logging
import ParlorDomain
import PostgresNIO

// Reactions to messages, shared by every instance.

extension PostgresChatStore {
    public func toggleReaction(_ toggle: ReactionToggle) async throws -> MessageReactions {
        try await database.write { [logger] connection in
            // The message's row locked: toggles of one message take turns, so the kinds are counted right.
            guard let row = try await connection.row(
                "SELECT \(unescaped: Columns.message) FROM message WHERE id = \(toggle.messageID.rawValue) FOR UPDATE", logger: logger
            ), let message = try Message(row: row), !message.isDeleted, message.notice == nil,
                try await Self.isMember(connection, message.chatID, toggle.userID, logger)
            else { throw Refusal.notFound }
            let removed = try await connection.row("""
                DELETE FROM reaction WHERE messageID = \(message.id.rawValue) AND userID = \(toggle.userID.rawValue) AND text = \(toggle.text)
                RETURNING 1
                """, logger: logger)
            if removed == nil {
                let kinds = Set(try await connection.rows(
                    "SELECT DISTINCT text FROM reaction WHERE messageID = \(message.id.rawValue)", logger: logger
                ).map { try $0.at(0, as: String.self) })
                guard kinds.contains(toggle.text) || kinds.count < ReactionText.kindsPerMessage else {
                    throw Refusal.tooManyReactions(limit: ReactionText.kindsPerMessage)
                }
                try await connection.run("""
                    INSERT INTO reaction (messageID, userID, text, createdAt)
                    VALUES (\(message.id.rawValue), \(toggle.userID.rawValue), \(toggle.text), \(toggle.at.timeIntervalSince1970))
                    """, logger: logger)
            }
            try await EventLogEntry.messageReacted(message.id, chat: message.chatID).append(connection, logger: logger)
            let counts = try await Self.reactions(connection, [message.id], logger)[message.id] ?? []
            return MessageReactions(messageID: message.id, chatID: message.chatID, counts: counts)
        }
    }

    public func reactions(to messages: [MessageID]) async throws -> [MessageID: [ReactionCount]] {
        guard !messages.isEmpty else { return [:] }
        return try await database.read { [logger] connection in try await Self.reactions(connection, messages, logger) }
    }

    /// The reactions to `messages`, on the caller's connection: one statement for a page of them.
    static func reactions(_ connection: PostgresConnection, _ messages: [MessageID], _ logger: Logger) async throws -> [MessageID: [ReactionCount]] {
        guard !messages.isEmpty else { return [:] }
        let ids = messages.map(\.rawValue)
        let rows = try await connection.rows(
            """
            SELECT r.messageID, r.userID, r.text, r.createdAt, u.displayName FROM reaction r JOIN account u ON u.id = r.userID
            WHERE r.messageID = ANY(\(ids)) ORDER BY r.id
            """, logger: logger
        ).map { row in
            StoredReaction(
                messageID: MessageID(try row.at(0, as: Int64.self)), userID: UserID(try row.at(1, as: Int64.self)), text: try row.at(2, as: String.self),
                at: Date(timeIntervalSince1970: try row.at(3, as: Double.self)), name: try row.at(4, as: String.self)
            )
        }
        return StoredReaction.counts(rows)
    }
}
