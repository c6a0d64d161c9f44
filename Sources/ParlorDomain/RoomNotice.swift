/// A line a room's conversation shows about the room itself ("Ana renamed the room to …"), stored as a message
/// whose sender is who did it. It is nobody's words: it counts as unread for no one and cannot be replied to,
/// edited or deleted.
public struct RoomNotice: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `subject` was added by the sender.
        case added
        /// `subject` was taken out by the sender.
        case removed
        /// The sender left.
        case left
        /// The sender gave the room the name `text`.
        case renamed
        /// The sender set the topic to `text` (nil: cleared it).
        case topicChanged
    }

    public let kind: Kind
    /// The person the line is about, when not the sender.
    public let subject: UserID?
    /// The new name or topic.
    public let text: String?

    public init(kind: Kind, subject: UserID? = nil, text: String? = nil) {
        self.kind = kind
        self.subject = subject
        self.text = text
    }
}

/// What a change to a room stored: the room as it is now, who came and went, and the lines its conversation
/// shows for it (in order).
public struct RoomChange: Hashable, Sendable {
    public let chat: Chat
    public let added: [UserID]
    public let removed: [UserID]
    public let notices: [Message]

    public init(chat: Chat, added: [UserID] = [], removed: [UserID] = [], notices: [Message]) {
        self.chat = chat
        self.added = added
        self.removed = removed
        self.notices = notices
    }
}
