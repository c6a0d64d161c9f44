import Foundation

/// A short reaction to a message: an emoji or a few words ("👍", "+1", "nice one"), like Campfire's boosts.
public enum ReactionText {
    /// The most characters (grapheme clusters: an emoji with its skin tone or family is one).
    public static let maximumLength = 16
    /// The most bytes, whatever the characters: 16 long emoji sequences stay far below it.
    public static let maximumBytes = 256
    /// What a text field lets through (`maxlength` counts UTF-16 units, and an emoji takes two or more): room for
    /// ``maximumLength`` characters of up to four units each. Parlor itself counts characters.
    public static let typedLimit = 4 * maximumLength
    /// The most different reactions one message carries; each may be given by every member.
    public static let kindsPerMessage = 20
    /// Offered first, one click each.
    public static let quickPicks = ["👍", "❤️", "😂", "🎉", "👀", "✅"]

    /// The reaction as stored: trimmed, one line, 1 to ``maximumLength`` characters, no control characters.
    public static func validated(_ text: String) throws(Refusal) -> String {
        try StoredText.refuseControlCharacters(text)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumBytes, trimmed.count <= maximumLength, !trimmed.contains(where: \.isNewline) else {
            throw .invalidReaction
        }
        return trimmed
    }
}

/// A member adds a reaction to a message, or takes back the same one.
public struct ReactionToggle: Hashable, Sendable {
    public let messageID: MessageID
    public let userID: UserID
    /// As typed; validated by the router.
    public let text: String
    public let at: Date

    public init(messageID: MessageID, userID: UserID, text: String, at: Date) {
        self.messageID = messageID
        self.userID = userID
        self.text = text
        self.at = at
    }
}

/// One reaction on a message and who gave it, in the order they did, with their names as shown then.
public struct ReactionCount: Hashable, Sendable {
    public let text: String
    public internal(set) var people: [UserID]
    /// Each person's display name, in the same order.
    public internal(set) var names: [String]

    public init(text: String, people: [UserID], names: [String]) {
        self.text = text
        self.people = people
        self.names = names
    }
}

/// A message's reactions after a change, in the order each was first given.
public struct MessageReactions: Hashable, Sendable {
    public let messageID: MessageID
    public let chatID: ChatID
    public let counts: [ReactionCount]

    public init(messageID: MessageID, chatID: ChatID, counts: [ReactionCount]) {
        self.messageID = messageID
        self.chatID = chatID
        self.counts = counts
    }

    /// The reactions `person` gave.
    public func given(by person: UserID) -> Set<String> { Set(counts.filter { $0.people.contains(person) }.map(\.text)) }
}

/// A reaction as a store keeps it, one row per person, message and text.
public struct StoredReaction: Hashable, Sendable {
    public let messageID: MessageID
    public let userID: UserID
    public let text: String
    public let at: Date
    /// The person's display name.
    public let name: String

    public init(messageID: MessageID, userID: UserID, text: String, at: Date, name: String) {
        self.messageID = messageID
        self.userID = userID
        self.text = text
        self.at = at
        self.name = name
    }

    /// Rows (in the order they were given) grouped per message and text, each group in order of its first row.
    public static func counts(_ rows: [StoredReaction]) -> [MessageID: [ReactionCount]] {
        var result: [MessageID: [ReactionCount]] = [:]
        for row in rows {
            // At most ``ReactionText/kindsPerMessage`` texts per message: a short search.
            if let index = result[row.messageID]?.firstIndex(where: { $0.text == row.text }) {
                result[row.messageID]?[index].people.append(row.userID)
                result[row.messageID]?[index].names.append(row.name)
            } else {
                result[row.messageID, default: []].append(ReactionCount(text: row.text, people: [row.userID], names: [row.name]))
            }
        }
        return result
    }
}
