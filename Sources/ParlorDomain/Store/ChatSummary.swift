import Foundation

/// How a chat is called on its members' screens: a room by its name (and topic), a direct chat of two by the
/// other person.
public struct ChatHeading: Hashable, Sendable {
    public let kind: RoomKind
    /// A room's name; nil for a direct chat.
    public let name: String?
    public let topic: String?
    public let memberCount: Int
    /// The other member of a direct chat of two, as the viewer sees it; nil in a room.
    public let contact: User?

    public init(kind: RoomKind, name: String?, topic: String?, memberCount: Int, contact: User?) {
        self.kind = kind
        self.name = name
        self.topic = topic
        self.memberCount = memberCount
        self.contact = contact
    }

    /// A direct chat of the viewer and `contact`.
    public static func direct(with contact: User) -> ChatHeading {
        ChatHeading(kind: .direct, name: nil, topic: nil, memberCount: 2, contact: contact)
    }

    /// Whether this is a room (open or closed) rather than a direct chat.
    public var isRoom: Bool { kind != .direct }

    /// This heading with a new profile of its contact.
    public func with(contact: User) -> ChatHeading {
        ChatHeading(kind: kind, name: name, topic: topic, memberCount: memberCount, contact: contact)
    }
}

/// One row of a person's chat list: the chat, how it is called, its last message and what is unread.
public struct ChatSummary: Hashable, Sendable {
    public let chatID: ChatID
    public let heading: ChatHeading
    public let lastMessage: Message?
    /// The display name of whoever wrote `lastMessage` (a room's preview says "Ana: …").
    public let lastSenderName: String?
    /// Messages from others newer than the viewer's last-read message.
    public let unreadCount: Int
    /// The time the list is ordered by: the last message, or the chat's creation.
    public let lastActivity: Date
    /// The newest message the viewer has read (nil: none yet); what the live pages keep counting from.
    public let lastRead: MessageID?
    /// How closely the viewer follows the chat.
    public let involvement: Involvement
    /// Unread messages that name the viewer (or everyone).
    public let mentionCount: Int

    public init(
        chatID: ChatID, heading: ChatHeading, lastMessage: Message?, lastSenderName: String? = nil, unreadCount: Int, lastActivity: Date,
        lastRead: MessageID? = nil, involvement: Involvement? = nil, mentionCount: Int = 0
    ) {
        self.chatID = chatID
        self.heading = heading
        self.lastMessage = lastMessage
        self.lastSenderName = lastSenderName
        self.unreadCount = unreadCount
        self.lastActivity = lastActivity
        self.lastRead = lastRead
        self.involvement = involvement ?? .joining(heading.kind)
        self.mentionCount = mentionCount
    }

    /// What the row's badge and the unread total count, as the viewer follows the chat: every unread message
    /// (everything), the mentions (mentions, and hidden: a mention brings it back), nothing (nothing).
    public var badgeCount: Int {
        switch involvement {
        case .everything: unreadCount
        case .mentions, .hidden: mentionCount
        case .nothing: 0
        }
    }

    /// Whether the row shows a dot for unread messages that are not counted (a room followed for mentions).
    public var showsDot: Bool { involvement == .mentions && unreadCount > 0 && mentionCount == 0 }

    /// Whether the row is in the list: a hidden chat only while something in it names the viewer.
    public var isListed: Bool { involvement != .hidden || mentionCount > 0 }

    /// A direct chat with `contact`.
    public init(chatID: ChatID, contact: User, lastMessage: Message?, unreadCount: Int, lastActivity: Date, lastRead: MessageID? = nil) {
        self.init(
            chatID: chatID, heading: .direct(with: contact), lastMessage: lastMessage, unreadCount: unreadCount, lastActivity: lastActivity,
            lastRead: lastRead
        )
    }

    /// The other member of a direct chat of two.
    public var contact: User? { heading.contact }
}

/// A member and the newest message they have read.
public struct Reader: Hashable, Sendable {
    public let user: User
    public let lastRead: MessageID
    /// The chat's newest message when they joined it: what came before is history they were never there for,
    /// never "seen" by them however far they read (0: a member since the chat began).
    public let joinedAfter: MessageID

    public init(user: User, lastRead: MessageID, joinedAfter: MessageID = MessageID(0)) {
        self.user = user
        self.lastRead = lastRead
        self.joinedAfter = joinedAfter
    }

    /// Whether they have seen `message`: it came while they were a member, and they read that far.
    public func hasSeen(_ message: MessageID) -> Bool {
        message > joinedAfter && message <= lastRead
    }

    /// Rooms up to this many members say who has seen each message; beyond it, nobody reads a list that long.
    public static let roomLimit = 100
}

/// What a conversation screen shows: a page of history (oldest first) and what the viewer has in flight.
public struct ConversationSnapshot: Hashable, Sendable {
    public let chatID: ChatID
    public let heading: ChatHeading
    /// Oldest first.
    public let messages: [Message]
    /// Messages quoted by `messages` that are not themselves on this page.
    public let quoted: [Message]
    public let pending: [PendingMessage]
    /// Who wrote the messages here and the ones they quote (and the contact of a direct chat).
    public let people: [UserID: User]
    /// The newest message the contact of a direct chat of two has read, for "Read" marks on the viewer's
    /// messages.
    public let contactLastRead: MessageID?
    /// Whether older messages exist before the first one here.
    public let hasOlder: Bool
    /// In a room of up to ``Reader/roomLimit`` members: who has read how far, for "Seen by".
    public let readers: [Reader]
    /// The reactions to the messages here, by message.
    public let reactions: [MessageID: [ReactionCount]]

    public init(
        chatID: ChatID,
        heading: ChatHeading,
        messages: [Message],
        quoted: [Message] = [],
        pending: [PendingMessage] = [],
        people: [User] = [],
        contactLastRead: MessageID? = nil,
        hasOlder: Bool = false,
        readers: [Reader] = [],
        reactions: [MessageID: [ReactionCount]] = [:]
    ) {
        self.readers = readers
        self.reactions = reactions
        self.chatID = chatID
        self.heading = heading
        self.messages = messages
        self.quoted = quoted
        self.pending = pending
        var known = Dictionary(people.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        if let contact = heading.contact { known[contact.id] = contact }
        self.people = known
        self.contactLastRead = contactLastRead
        self.hasOlder = hasOlder
    }

    /// This snapshot with who has read how far.
    public func with(readers: [Reader]) -> ConversationSnapshot {
        ConversationSnapshot(
            chatID: chatID, heading: heading, messages: messages, quoted: quoted, pending: pending, people: Array(people.values),
            contactLastRead: contactLastRead, hasOlder: hasOlder, readers: readers, reactions: reactions
        )
    }

    /// This snapshot with the reactions to its messages.
    public func with(reactions: [MessageID: [ReactionCount]]) -> ConversationSnapshot {
        ConversationSnapshot(
            chatID: chatID, heading: heading, messages: messages, quoted: quoted, pending: pending, people: Array(people.values),
            contactLastRead: contactLastRead, hasOlder: hasOlder, readers: readers, reactions: reactions
        )
    }

    /// Whether the room is one whose messages say who has seen them.
    public var showsReaders: Bool { heading.isRoom && heading.memberCount <= Reader.roomLimit }

    /// A direct chat with `contact`.
    public init(
        chatID: ChatID, contact: User, messages: [Message], quoted: [Message] = [], pending: [PendingMessage] = [],
        contactLastRead: MessageID? = nil, hasOlder: Bool = false
    ) {
        self.init(
            chatID: chatID, heading: .direct(with: contact), messages: messages, quoted: quoted, pending: pending, contactLastRead: contactLastRead,
            hasOlder: hasOlder
        )
    }

    /// The other member of a direct chat of two.
    public var contact: User? { heading.contact }

    /// The ids of the people a page of `messages` and `quoted` shows: authors (feeds' posts show the feed) and
    /// whom the lines about the room name.
    public static func authors(of messages: [Message], _ quoted: [Message]) -> [UserID] {
        var seen = Set<UserID>()
        var ids: [UserID] = []
        for message in messages + quoted where message.feed == nil {
            if seen.insert(message.senderID).inserted { ids.append(message.senderID) }
            if let subject = message.notice?.subject, seen.insert(subject).inserted { ids.append(subject) }
        }
        return ids
    }
}
