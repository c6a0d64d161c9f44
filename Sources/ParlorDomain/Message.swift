import Foundation

/// A message as stored.
public struct Message: Hashable, Sendable {
    public let id: MessageID
    public let chatID: ChatID
    public let senderID: UserID
    public let body: String
    public let createdAt: Date
    /// Set once the sender changed the text.
    public let editedAt: Date?
    /// The message this one answers, if any.
    public let replyTo: MessageID?
    /// Set once the sender deleted it; its text is gone from the store then (the body is empty).
    public let deletedAt: Date?
    /// The photo sent with it, if any (none once deleted).
    public let photo: MessagePhoto?
    /// Set when a feed posted it: the feed is its author, the item's title and date come with the text.
    public let feed: FeedPost?
    /// Set when it is a line about the room (a member added, a new name): no one's words.
    public let notice: RoomNotice?
    /// The card of the page its text links to, once read (or removed by the sender).
    public let preview: LinkPreview?

    public init(
        id: MessageID, chatID: ChatID, senderID: UserID, body: String, createdAt: Date, editedAt: Date? = nil, replyTo: MessageID? = nil,
        deletedAt: Date? = nil, photo: MessagePhoto? = nil, feed: FeedPost? = nil, notice: RoomNotice? = nil, preview: LinkPreview? = nil
    ) {
        self.preview = preview
        self.id = id
        self.chatID = chatID
        self.senderID = senderID
        self.body = body
        self.createdAt = createdAt
        self.editedAt = editedAt
        self.replyTo = replyTo
        self.deletedAt = deletedAt
        self.photo = photo
        self.feed = feed
        self.notice = notice
    }

    public var isDeleted: Bool { deletedAt != nil }

    /// The same message with `photo` in its new state.
    public func with(photo: MessagePhoto?) -> Message {
        Message(
            id: id, chatID: chatID, senderID: senderID, body: body, createdAt: createdAt, editedAt: editedAt, replyTo: replyTo, deletedAt: deletedAt,
            photo: photo, feed: feed, notice: notice, preview: preview
        )
    }

    /// The same message with `preview` (nil: none).
    public func with(preview: LinkPreview?) -> Message {
        Message(
            id: id, chatID: chatID, senderID: senderID, body: body, createdAt: createdAt, editedAt: editedAt, replyTo: replyTo, deletedAt: deletedAt,
            photo: photo, feed: feed, notice: notice, preview: preview
        )
    }

    /// Whom the text names: counted as the member's mentions while unread.
    public var named: NamedPeople { notice == nil && feed == nil ? NamedPeople(in: body) : NamedPeople(handles: [], everyone: false) }

    /// Whether it counts as unread for `member`: someone else's words (a feed's posts are everyone's), never a
    /// line about the room, never once deleted.
    public func isUnread(for member: UserID) -> Bool {
        notice == nil && !isDeleted && (feed != nil || senderID != member)
    }

    /// The same message after its sender deleted it: no text, no photo, the time it went.
    public func deleted(at date: Date) -> Message {
        Message(id: id, chatID: chatID, senderID: senderID, body: "", createdAt: createdAt, editedAt: editedAt, replyTo: replyTo, deletedAt: date, feed: feed)
    }
}

/// A message the viewer sent that the store has not acknowledged yet, or that failed.
public struct PendingMessage: Hashable, Sendable {
    /// The idempotency token the form carried; retrying with it never duplicates the message.
    public let token: String
    public let chatID: ChatID
    public let body: String
    public let createdAt: Date
    public let replyTo: MessageID?
    /// Why sending failed, for a person; nil while it is still being sent.
    public let failure: String?

    public init(token: String, chatID: ChatID, body: String, createdAt: Date, replyTo: MessageID? = nil, failure: String? = nil) {
        self.token = token
        self.chatID = chatID
        self.body = body
        self.createdAt = createdAt
        self.replyTo = replyTo
        self.failure = failure
    }
}
