import Foundation

/// What the chats screen shows one viewer, read as one snapshot: the list, and the open conversation with
/// the messages its replies quote. A store with transactions reads it in one (one round trip on a server
/// database); the composed default below is for stores without them.
public struct ChatsScreen: Hashable, Sendable {
    /// The chat list, newest activity first.
    public let summaries: [ChatSummary]
    /// The open conversation; nil when none was asked for or the viewer is not a member.
    public let conversation: ConversationSnapshot?
    /// The newest message the viewer has read in the open chat.
    public let viewerLastRead: MessageID?

    public init(summaries: [ChatSummary], conversation: ConversationSnapshot?, viewerLastRead: MessageID?) {
        self.summaries = summaries
        self.conversation = conversation
        self.viewerLastRead = viewerLastRead
    }

    /// Unread messages over every chat: the badge, counted from the list just read.
    public var unreadTotal: Int { summaries.reduce(0) { $0 + $1.badgeCount } }

    /// Whether opening the conversation moves the viewer's read mark: something in it is unread, or its
    /// newest message is past the mark. False when no conversation is open.
    public var opensUnread: Bool {
        guard let conversation, let summary = summaries.first(where: { $0.chatID == conversation.chatID }) else { return false }
        return summary.unreadCount > 0 || (summary.lastMessage?.id).map { $0 > (viewerLastRead ?? MessageID(0)) } == true
    }
}

/// A signed-in browser's session and its person, read together.
public struct LiveSession: Hashable, Sendable {
    public let session: StoredSession
    public let user: User

    public init(session: StoredSession, user: User) {
        self.session = session
        self.user = user
    }
}

extension ChatReads {
    /// The names a direct chat of more than two is called by for `viewer` (``Chat/othersShown`` of the others,
    /// by name); none for any other chat.
    public func others(in chat: Chat, for viewer: UserID) async throws -> [String] {
        guard chat.kind == .direct, chat.members.count > 2 else { return [] }
        var names: [String] = []
        for member in chat.members where member != viewer {
            if let person = try await user(member) { names.append(person.displayName) }
        }
        return Array(names.sorted { $0.lowercased() < $1.lowercased() }.prefix(Chat.othersShown))
    }

    /// Composed of single reads: each is consistent, the whole is not one snapshot.
    public func chatsScreen(for viewer: UserID, open chat: ChatID?, before: MessageID?, limit: Int) async throws -> ChatsScreen {
        let summaries = try await chatList(for: viewer)
        guard let chat else { return ChatsScreen(summaries: summaries, conversation: nil, viewerLastRead: nil) }
        let conversation = try await conversation(chat, viewer: viewer, before: before, limit: limit)
        let mark = conversation == nil ? nil : try await membership(chat, viewer)?.lastRead
        return ChatsScreen(summaries: summaries, conversation: conversation, viewerLastRead: mark)
    }

    /// Composed of single reads: the chat, the contact, a page of history, the quoted messages, their
    /// authors, the contact's read mark.
    public func conversation(_ chat: ChatID, viewer: UserID, before: MessageID?, limit: Int) async throws -> ConversationSnapshot? {
        guard let stored = try await self.chat(chat), stored.hasMember(viewer) else { return nil }
        let contactID = stored.contact(of: viewer)
        var contact: User?
        if let contactID {
            contact = try await user(contactID)
            if contact == nil { return nil }
        }
        let page = try await messages(in: chat, before: before, limit: limit)
        let onPage = Set(page.messages.map(\.id))
        var quoted: [Message] = []
        for id in Set(page.messages.compactMap(\.replyTo)).sorted() where !onPage.contains(id) {
            if let message = try await message(id), message.chatID == chat { quoted.append(message) }
        }
        var people: [User] = []
        for id in ConversationSnapshot.authors(of: page.messages, quoted) where id != contactID {
            if let person = try await user(id) { people.append(person) }
        }
        var contactLastRead: MessageID?
        if let contactID { contactLastRead = try await membership(chat, contactID)?.lastRead }
        return ConversationSnapshot(
            chatID: chat, heading: stored.heading(contact: contact, others: try await others(in: stored, for: viewer)), messages: page.messages,
            quoted: quoted, people: people,
            contactLastRead: contactLastRead, hasOlder: page.hasOlder, reactions: try await reactions(to: page.messages.map(\.id))
        )
    }
}
