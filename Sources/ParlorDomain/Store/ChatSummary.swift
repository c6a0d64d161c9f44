import Foundation

/// One row of a person's chat list: the chat, the other member, its last message and what is unread.
public struct ChatSummary: Hashable, Sendable {
    public let chatID: ChatID
    public let contact: User
    public let lastMessage: Message?
    /// Messages from the contact newer than the viewer's last-read message.
    public let unreadCount: Int
    /// The time the list is ordered by: the last message, or the chat's creation.
    public let lastActivity: Date
    /// The newest message the viewer has read (nil: none yet); what the live pages keep counting from.
    public let lastRead: MessageID?

    public init(chatID: ChatID, contact: User, lastMessage: Message?, unreadCount: Int, lastActivity: Date, lastRead: MessageID? = nil) {
        self.chatID = chatID
        self.contact = contact
        self.lastMessage = lastMessage
        self.unreadCount = unreadCount
        self.lastActivity = lastActivity
        self.lastRead = lastRead
    }
}

/// What a conversation screen shows: a page of history (oldest first) and what the viewer has in flight.
public struct ConversationSnapshot: Hashable, Sendable {
    public let chatID: ChatID
    public let contact: User
    /// Oldest first.
    public let messages: [Message]
    /// Messages quoted by `messages` that are not themselves on this page.
    public let quoted: [Message]
    public let pending: [PendingMessage]
    /// The newest message the contact has read, for "Read" marks on the viewer's messages.
    public let contactLastRead: MessageID?
    /// Whether older messages exist before the first one here.
    public let hasOlder: Bool

    public init(
        chatID: ChatID,
        contact: User,
        messages: [Message],
        quoted: [Message] = [],
        pending: [PendingMessage] = [],
        contactLastRead: MessageID? = nil,
        hasOlder: Bool = false
    ) {
        self.chatID = chatID
        self.contact = contact
        self.messages = messages
        self.quoted = quoted
        self.pending = pending
        self.contactLastRead = contactLastRead
        self.hasOlder = hasOlder
    }
}
