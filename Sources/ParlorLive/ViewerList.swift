import Foundation
import ParlorDomain

/// What one person's chat list shows (each chat's row and the unread total), kept while they have a page
/// open here and moved on by the events themselves: a message in a room of 500 updates the lists of its
/// members with pages open without reading the store for each of them. It counts as the store does
/// (ParlorStorage's group commit, `markRead`, `delete`): a message is unread for everyone but its sender
/// (a feed's post for everyone) until their read mark passes it; a deleted one no longer counts.
struct ViewerList: Sendable {
    /// The person, with the time zone and locale their pages are drawn in.
    var user: User
    private(set) var chats: [ChatID: ChatSummary]
    private(set) var unreadTotal: Int
    /// Per chat, the newest message the read that made (or last replaced) the row saw: messages up to it are
    /// counted already, so an event for one of them that arrives afterwards changes no count.
    private var counted: [ChatID: MessageID] = [:]
    /// The greatest (activity, chat) of the list: the chat at the top. Activity only ever grows.
    private var top: (activity: Date, chat: Int64)?

    init(user: User, summaries: [ChatSummary]) {
        self.user = user
        chats = Dictionary(summaries.map { ($0.chatID, $0) }, uniquingKeysWith: { first, _ in first })
        unreadTotal = summaries.reduce(0) { $0 + $1.badgeCount }
        for summary in summaries {
            counted[summary.chatID] = summary.lastMessage?.id
            raiseTop(summary)
        }
    }

    /// The rows, newest activity first (as the store orders them).
    var summaries: [ChatSummary] {
        chats.values.newestActivityFirst()
    }

    /// Whether `chat` is the row at the top of the list.
    func isAtTop(_ chat: ChatID) -> Bool {
        guard let summary = chats[chat], let top else { return false }
        return top.activity == summary.lastActivity && top.chat == chat.rawValue
    }

    /// What an event changed in the list.
    struct Change: Equatable {
        /// The chat's row shows something else.
        var row = false
        /// The unread total moved.
        var unread = false
    }

    /// A message was stored (`senderName`: who wrote it, as a room's preview says). Nothing when the chat is not
    /// in the list.
    mutating func sent(_ message: Message, senderName: String? = nil, named: NamedPeople? = nil) -> Change {
        guard let old = chats[message.chatID] else { return Change() }
        let newer = (old.lastMessage?.id ?? MessageID(0)) < message.id
        var unread = old.unreadCount, mentions = old.mentionCount
        let alreadyCounted = message.id <= (counted[message.chatID] ?? MessageID(0)) || message.id <= (old.lastRead ?? MessageID(0))
        if isUnread(message), !alreadyCounted {
            unread += 1
            if (named ?? message.named).names(user.handle) { mentions += 1 }
        }
        let summary = old.with(
            lastMessage: newer ? message : old.lastMessage, lastSenderName: newer ? senderName : old.lastSenderName, unreadCount: unread,
            lastActivity: max(old.lastActivity, message.createdAt), mentionCount: mentions
        )
        return replaceRow(summary)
    }

    /// A message's text, photo or deletion changed: the row when it is the last message; a deleted one no
    /// longer counts as unread.
    mutating func changed(_ message: Message, named: NamedPeople? = nil) -> Change {
        guard let old = chats[message.chatID] else { return Change() }
        var unread = old.unreadCount, mentions = old.mentionCount
        // Counted when it is not newer than the last message here (its own event came, or the read saw it).
        if message.isDeleted, isUnread(message), message.id > (old.lastRead ?? MessageID(0)), message.id <= (old.lastMessage?.id ?? MessageID(0)) {
            unread = max(0, unread - 1)
            if let named, named.names(user.handle) { mentions = max(0, mentions - 1) }
        }
        let last = old.lastMessage?.id == message.id ? message : old.lastMessage
        return replaceRow(old.with(lastMessage: last, unreadCount: unread, mentionCount: mentions))
    }

    /// How a read of one's own changed the list.
    enum ReadOutcome: Equatable {
        case changed(Change)
        /// Messages newer than the read mark may be unread still: the row must be read from the store.
        case readAgain
    }

    /// The person read `chat` up to `upTo`.
    mutating func read(_ chat: ChatID, upTo: MessageID) -> ReadOutcome {
        guard let old = chats[chat] else { return .changed(Change()) }
        let mark = max(old.lastRead ?? MessageID(0), upTo)
        guard (old.lastMessage?.id ?? MessageID(0)) <= mark else { return .readAgain }
        return .changed(replaceRow(old.with(unreadCount: 0, lastRead: mark, mentionCount: 0)))
    }

    /// The row as the store has it now (after ``read(_:upTo:)`` said `readAgain`, or a new chat).
    mutating func replace(_ summary: ChatSummary) -> Change {
        if let last = summary.lastMessage?.id { counted[summary.chatID] = max(counted[summary.chatID] ?? last, last) }
        return replaceRow(summary)
    }

    /// A new chat's row, unless the list has it already (read after the chat was made).
    mutating func added(_ summary: ChatSummary) -> Bool {
        guard chats[summary.chatID] == nil else { return false }
        _ = replace(summary)
        return true
    }

    /// The person is no longer in `chat`: its row goes, with what it counted as unread.
    mutating func removed(_ chat: ChatID) -> Change {
        guard let old = chats.removeValue(forKey: chat) else { return Change() }
        counted[chat] = nil
        unreadTotal -= old.badgeCount
        if top?.chat == chat.rawValue { top = chats.values.map { (activity: $0.lastActivity, chat: $0.chatID.rawValue) }.max { ($0.activity, $0.chat) < ($1.activity, $1.chat) } }
        return Change(row: true, unread: old.badgeCount != 0)
    }

    /// The person follows `chat` as `involvement` now.
    mutating func follows(_ chat: ChatID, _ involvement: Involvement) -> Change {
        guard let old = chats[chat], old.involvement != involvement else { return Change() }
        return replaceRow(old.with(involvement: involvement))
    }

    /// The room's name, topic or number of members changed.
    mutating func renamed(_ chat: ChatID, _ heading: ChatHeading) -> Change {
        guard let old = chats[chat], old.heading != heading else { return Change() }
        return replaceRow(old.with(heading: heading))
    }

    /// A contact's profile changed: the chats whose rows show them.
    mutating func contactChanged(_ contact: User) -> [ChatID] {
        let affected = chats.values.filter { $0.contact?.id == contact.id && $0.contact != contact }.map(\.chatID)
        for chat in affected {
            if let old = chats[chat] { chats[chat] = old.with(heading: old.heading.with(contact: contact)) }
        }
        return affected
    }

    private func isUnread(_ message: Message) -> Bool {
        message.notice == nil && (message.feed != nil || message.senderID != user.id)
    }

    private mutating func replaceRow(_ summary: ChatSummary) -> Change {
        let old = chats[summary.chatID]
        chats[summary.chatID] = summary
        unreadTotal += summary.badgeCount - (old?.badgeCount ?? 0)
        raiseTop(summary)
        return Change(row: old != summary, unread: old?.badgeCount != summary.badgeCount)
    }

    private mutating func raiseTop(_ summary: ChatSummary) {
        let key = (activity: summary.lastActivity, chat: summary.chatID.rawValue)
        if let top, (top.activity, top.chat) >= (key.activity, key.chat) { return }
        top = key
    }
}

extension ChatSummary {
    /// This row with some of its values replaced.
    func with(
        heading: ChatHeading? = nil, lastMessage: Message?? = nil, lastSenderName: String?? = nil, unreadCount: Int? = nil, lastActivity: Date? = nil,
        lastRead: MessageID? = nil, involvement: Involvement? = nil, mentionCount: Int? = nil
    ) -> ChatSummary {
        ChatSummary(
            chatID: chatID, heading: heading ?? self.heading, lastMessage: lastMessage ?? self.lastMessage,
            lastSenderName: lastSenderName ?? self.lastSenderName, unreadCount: unreadCount ?? self.unreadCount,
            lastActivity: lastActivity ?? self.lastActivity, lastRead: lastRead ?? self.lastRead, involvement: involvement ?? self.involvement,
            mentionCount: mentionCount ?? self.mentionCount
        )
    }
}
