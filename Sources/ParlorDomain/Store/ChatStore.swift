import Foundation

/// Where Parlor keeps people, chats and messages: its reads (``ChatReads``) and its writes, cut by what they change
/// (``PeopleWrites``, ``RoomWrites``, ``MessageWrites``). Only the event router writes through it; whatever only
/// reads is handed ``ChatReads``.
///
/// Every method is one transaction: it happens completely or not at all. Constraint violations the
/// store alone can see (a handle taken meanwhile, a chat that exists, a message that is not yours) are
/// thrown as ``Refusal``; anything else (a full disk) as another error.
public protocol ChatStore: ChatReads, PeopleWrites, RoomWrites, MessageWrites {}

/// What Parlor keeps of people, chats and messages, read: what the screens, the live pages and the workers that
/// only look (whom a message is pushed to, bots' webhooks) are given. A store that reads at once what one page shows
/// does so in ``chatsScreen(for:open:before:limit:)`` and ``conversation(_:viewer:before:limit:)``.
public protocol ChatReads: Sendable {
    func user(_ id: UserID) async throws -> User?
    func user(handle: String) async throws -> User?
    /// People whose handle or display name starts with `prefix` (case-insensitive), handles in order.
    func users(matching prefix: String, excluding: UserID, limit: Int) async throws -> [User]
    func chat(_ id: ChatID) async throws -> Chat?
    /// How many people `chat` has, nil when there is no such chat: one row read, where ``chat(_:)`` reads every
    /// member (10,000 rows in the room of everyone).
    func memberCount(of chat: ChatID) async throws -> Int?
    /// The members of `chat` who have read something in it, with how far and since which message they are members:
    /// what "Seen by" says. Joining sets the read position to the newest message (history is not unread), but
    /// only a read is seeing.
    func readers(of chat: ChatID) async throws -> [Reader]
    /// Everyone in `chat`, by display name; nil when `viewer` is not one of them.
    func members(of chat: ChatID, viewer: UserID) async throws -> [User]?
    /// Those of `people` who share a chat with `viewer` now (the viewer among them too when they are in one):
    /// whose presence the viewer may see.
    func sharingAChat(with viewer: UserID, among people: Set<UserID>) async throws -> Set<UserID>
    /// The chat list of `viewer`, newest activity first, with each chat's last message and unread count.
    func chatList(for viewer: UserID) async throws -> [ChatSummary]
    /// One row of that list.
    func chatSummary(_ chat: ChatID, for viewer: UserID) async throws -> ChatSummary?
    /// Messages from others that `viewer` has not read, over all chats.
    func unreadTotal(for viewer: UserID) async throws -> Int
    func message(_ id: MessageID) async throws -> Message?
    /// Up to `limit` messages older than `before` (the newest when nil), oldest first.
    func messages(in chat: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage
    /// Up to `limit` messages newer than `after`, oldest first (a page found by search, read forwards).
    func messages(in chat: ChatID, after: MessageID, limit: Int) async throws -> MessagePage
    /// The reactions to `messages` (of one chat the caller may see), by message; none for those without.
    func reactions(to messages: [MessageID]) async throws -> [MessageID: [ReactionCount]]
    func membership(_ chat: ChatID, _ user: UserID) async throws -> Membership?
    /// The chat list of `viewer` and, when `open` is one of their chats, up to `limit` messages of it before
    /// `before` with what they quote.
    func chatsScreen(for viewer: UserID, open chat: ChatID?, before: MessageID?, limit: Int) async throws -> ChatsScreen
    /// One conversation as `viewer` sees it; nil when they are not a member.
    func conversation(_ chat: ChatID, viewer: UserID, before: MessageID?, limit: Int) async throws -> ConversationSnapshot?
}

/// People made and changed: the event router's, through ``ChatStore``.
public protocol PeopleWrites: Sendable {
    /// Stores the person, a member of every open room from now on.
    func createUser(_ user: NewUser, at date: Date) async throws -> User
    func updateProfile(_ change: ProfileChange) async throws -> User
}

/// Chats made, their members and names, and how closely each member follows them: the event router's, through
/// ``ChatStore``.
public protocol RoomWrites: Sendable {
    /// Creates the one-to-one chat of two people; throws `Refusal.chatExists` when they have one.
    func createChat(between first: UserID, and second: UserID, at date: Date) async throws -> Chat
    /// Creates the direct chat of three or more people (`people`, the creator among them); throws
    /// `Refusal.chatExists` when those same people have one.
    func createDirectChat(among people: [UserID], at date: Date) async throws -> Chat
    /// Creates an open room (its members: everyone, and whoever signs up later) or a closed one (the creator
    /// and the members chosen); `notFound` when one of them does not exist.
    func createRoom(_ room: NewRoom) async throws -> Chat
    /// Creates `room` (open) unless an open room exists already: the room a new Parlor starts with. Nil when
    /// there was one.
    func createFirstRoom(_ room: NewRoom) async throws -> Chat?
    /// Adds people to a closed room `by` one of its members (who is there already stays as they are), each with
    /// a line saying so; joined now, with the history to read. `membersFixed` for another kind of chat.
    func addMembers(_ people: [UserID], to chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange
    /// Takes `person` out of a closed room `by` one of its members (`by` themselves: they leave), with a line
    /// saying so. `notFound` when either is not a member.
    func removeMember(_ person: UserID, from chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange
    /// A room's new name and topic, `by` one of its members, with a line for each that changed.
    func renameRoom(_ chat: ChatID, name: String, topic: String?, by: UserID, at date: Date) async throws -> RoomChange
    /// How closely `user` follows `chat` from now on; `notFound` when they are not a member.
    func setInvolvement(_ involvement: Involvement, in chat: ChatID, for user: UserID) async throws -> Membership
}

/// Messages stored, edited, deleted, read, reacted to and given their photos and cards: the event router's, through
/// ``ChatStore``.
public protocol MessageWrites: Sendable {
    /// Stores a validated message. The same sender and token twice returns the first message unchanged.
    func send(_ message: OutgoingMessage) async throws -> Message
    /// Replaces the text of the editor's own message; a deleted one cannot be edited.
    func edit(_ edit: MessageEdit) async throws -> Message
    /// Deletes the requester's own message: its text is erased from the store, its place in the chat stays.
    /// Deleting it again answers the deleted message with `deletedNow` false.
    func delete(_ deletion: MessageDeletion) async throws -> DeletedMessage
    /// Records a pending photo's versions (ready) or its failure, on the image and its message, in one
    /// transaction; answers the message. Nil when no photo with that id is pending (its message was deleted).
    func finishPhoto(_ result: PhotoResult) async throws -> Message?
    /// Moves the reader's mark forward to `upTo` (the newest message when nil; never backwards).
    /// Returns the mark after the call, nil when there is nothing to read.
    func markRead(_ report: ReadReport) async throws -> MessageID?
    /// Adds the person's reaction when they have not given it to the message yet, else takes it back; answers the
    /// message's reactions after. `notFound` unless they are a member of the message's chat and the message is
    /// someone's words (not deleted, not a line about the room); `tooManyReactions` for a new kind past
    /// ``ReactionText/kindsPerMessage``. The text comes validated.
    func toggleReaction(_ toggle: ReactionToggle) async throws -> MessageReactions
    /// Keeps the card of the page a message links to; answers the message with it. Nil, changing nothing, when the
    /// message is gone or deleted, its text no longer holds that link, or it has a card already (or had one removed).
    func recordPreview(_ result: PreviewResult) async throws -> Message?
    /// Removes the card of the requester's own message for good; answers the message. `notFound` for a message
    /// without a card, `notYourMessage` for someone else's.
    func removePreview(_ removal: PreviewRemoval) async throws -> Message
}

/// A slice of a conversation, oldest first.
public struct MessagePage: Hashable, Sendable {
    public let messages: [Message]
    /// Whether messages older than the first one exist.
    public let hasOlder: Bool
    /// Whether messages newer than the last one exist (known only to pages read forwards).
    public let hasNewer: Bool

    public init(messages: [Message], hasOlder: Bool, hasNewer: Bool = false) {
        self.messages = messages
        self.hasOlder = hasOlder
        self.hasNewer = hasNewer
    }
}
