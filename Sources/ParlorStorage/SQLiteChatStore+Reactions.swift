import Foundation
import GRDB
import ParlorDomain

// Reactions to messages: one row per person, message and text.

extension SQLiteChatStore {
    public func toggleReaction(_ toggle: ReactionToggle) async throws -> MessageReactions {
        try await write { db in
            guard let message = try Self.message(db, toggle.messageID), !message.isDeleted, message.notice == nil,
                  try Self.isMember(db, message.chatID, toggle.userID)
            else { throw Refusal.notFound }
            let arguments: StatementArguments = [message.id.rawValue, toggle.userID.rawValue, toggle.text]
            try db.cachedStatement(sql: "DELETE FROM reaction WHERE messageID = ? AND userID = ? AND text = ?").execute(arguments: arguments)
            if db.changesCount == 0 {
                let kinds = try Set(String.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT text FROM reaction WHERE messageID = ?"), arguments: [message.id.rawValue]))
                guard kinds.contains(toggle.text) || kinds.count < ReactionText.kindsPerMessage else {
                    throw Refusal.tooManyReactions(limit: ReactionText.kindsPerMessage)
                }
                try db.cachedStatement(sql: "INSERT INTO reaction (messageID, userID, text, createdAt) VALUES (?, ?, ?, ?)")
                    .execute(arguments: arguments + [toggle.at.timeIntervalSince1970])
            }
            return MessageReactions(messageID: message.id, chatID: message.chatID, counts: try Self.reactions(db, [message.id])[message.id] ?? [])
        }
    }

    public func reactions(to messages: [MessageID]) async throws -> [MessageID: [ReactionCount]] {
        guard !messages.isEmpty else { return [:] }
        return try await read { db in try Self.reactions(db, messages) }
    }

    /// The reactions to `messages`, in the caller's transaction: one statement, prepared once for any number of them
    /// (the ids go in as a JSON array), one index look-up per message.
    static func reactions(_ db: Database, _ messages: [MessageID]) throws -> [MessageID: [ReactionCount]] {
        guard !messages.isEmpty else { return [:] }
        let ids = "[" + messages.map { String($0.rawValue) }.joined(separator: ",") + "]"
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT r.messageID, r.userID, r.text, r.createdAt, u.displayName FROM reaction r JOIN user u ON u.id = r.userID
                WHERE r.messageID IN (SELECT value FROM json_each(?)) ORDER BY r.id
                """),
            arguments: [ids]
        ).map { row in
            StoredReaction(messageID: MessageID(row[0] as Int64), userID: UserID(row[1] as Int64), text: row[2], at: Date(timeIntervalSince1970: row[3]), name: row[4])
        }
        return StoredReaction.counts(rows)
    }
}
