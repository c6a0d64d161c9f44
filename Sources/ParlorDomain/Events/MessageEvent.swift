import Foundation

/// What happens to messages. Sources (a form POST, the chatbot, a feed) hand the `-ing` cases to the
/// event router; the router answers with, and tells every listener, the cases that say how it ended.
public enum MessageEvent: Hashable, Sendable {
    /// Someone asks to send a message; the sender's pages show it as "Sending" at once.
    case sending(OutgoingMessage)
    /// The store acknowledged it: "Sent" for the sender, a new message for everyone else.
    case sent(Message, token: String)
    /// It was refused or could not be stored; the sender's pages show "Failed" with a retry.
    case failedSending(OutgoingMessage, reason: Refusal)
    /// The sender asks to change a message's text.
    case editing(MessageEdit)
    /// The new text is stored; everyone viewing sees it with the "Edited" mark.
    case edited(Message)
    /// The edit was refused; the message is unchanged.
    case failedEditing(MessageEdit, reason: Refusal)
    /// The sender asks to delete a message.
    case deleting(MessageDeletion)
    /// Its text is gone from the store; everyone viewing sees "Message deleted".
    case deleted(Message)
    /// The deletion was refused; the message is unchanged.
    case failedDeleting(MessageDeletion, reason: Refusal)
    /// A member has seen a chat up to a message (the newest one when `upTo` is nil).
    case userReads(ReadReport)
    /// The store moved the member's read mark: their unread count drops, the other members see "Read".
    case userRead(chat: ChatID, reader: UserID, previous: MessageID?, upTo: MessageID)
    /// The image worker finished a message's photo, ready or failed.
    case processingPhoto(PhotoResult)
    /// The photo's new state is stored: every page showing the message redraws its cell.
    case photoProcessed(Message)
    /// A member adds a reaction to a message, or takes back the same one.
    case reacting(ReactionToggle)
    /// The message's reactions after the change: every page showing the message redraws them.
    case reacted(MessageReactions)
    /// The reaction was refused; nothing changed.
    case failedReacting(ReactionToggle, reason: Refusal)
    /// The previewer read the card of the page a message links to.
    case previewing(PreviewResult)
    /// The sender asks for the card to go.
    case removingPreview(PreviewRemoval)
    /// Stored: the message with its card (or without it, removed); its cell is drawn again everywhere.
    case previewed(Message)
    case failedRemovingPreview(PreviewRemoval, reason: Refusal)
}

/// A message someone wants to send.
public struct OutgoingMessage: Hashable, Sendable {
    public let chatID: ChatID
    public let senderID: UserID
    /// As typed; validated by the router.
    public let body: String
    public let replyTo: MessageID?
    /// Chosen by the page that sends it; the same token twice stores one message.
    public let token: String
    public let createdAt: Date
    /// A photo sent with it, stored in the same transaction (the text may then be empty).
    public let photo: NewPhoto?

    public init(chatID: ChatID, senderID: UserID, body: String, replyTo: MessageID? = nil, token: String, createdAt: Date, photo: NewPhoto? = nil) {
        self.chatID = chatID
        self.senderID = senderID
        self.body = body
        self.replyTo = replyTo
        self.token = token
        self.createdAt = createdAt
        self.photo = photo
    }
}

/// A change of a message's text by its sender.
public struct MessageEdit: Hashable, Sendable {
    public let messageID: MessageID
    public let editorID: UserID
    public let body: String
    public let editedAt: Date

    public init(messageID: MessageID, editorID: UserID, body: String, editedAt: Date) {
        self.messageID = messageID
        self.editorID = editorID
        self.body = body
        self.editedAt = editedAt
    }
}

/// A sender's deletion of their message.
public struct MessageDeletion: Hashable, Sendable {
    public let messageID: MessageID
    public let requesterID: UserID
    public let deletedAt: Date

    public init(messageID: MessageID, requesterID: UserID, deletedAt: Date) {
        self.messageID = messageID
        self.requesterID = requesterID
        self.deletedAt = deletedAt
    }
}

/// What a deletion left: the deleted message, and whether this call deleted it (false when it was deleted before).
public struct DeletedMessage: Hashable, Sendable {
    public let message: Message
    public let deletedNow: Bool

    public init(message: Message, deletedNow: Bool) {
        self.message = message
        self.deletedNow = deletedNow
    }
}

/// "I have seen this chat up to here."
public struct ReadReport: Hashable, Sendable {
    public let chatID: ChatID
    public let readerID: UserID
    /// Nil: up to the newest message.
    public let upTo: MessageID?

    public init(chatID: ChatID, readerID: UserID, upTo: MessageID? = nil) {
        self.chatID = chatID
        self.readerID = readerID
        self.upTo = upTo
    }
}
