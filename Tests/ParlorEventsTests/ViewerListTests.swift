import Foundation
import ParlorDomain
import Testing
@testable import ParlorLive

/// A kept chat list counts as the store does, from events alone, and never counts a message twice.
@Suite struct ViewerListTests {
    static let ana = User(id: UserID(1), handle: "ana", displayName: "Ana")
    static let ben = User(id: UserID(2), handle: "ben", displayName: "Ben")
    static let chloe = User(id: UserID(3), handle: "chloe", displayName: "Chloé")
    static let start = Date(timeIntervalSince1970: 1_795_698_300)

    static func message(_ id: Int64, chat: Int64 = 7, from sender: User, at minute: Double = 0, deleted: Bool = false) -> Message {
        Message(
            id: MessageID(id), chatID: ChatID(chat), senderID: sender.id, body: "m\(id)", createdAt: start.addingTimeInterval(minute * 60),
            deletedAt: deleted ? start : nil
        )
    }

    /// Ana's list as read: chat 7 with Ben (message 10 from Ben, unread), chat 8 with Chloé (nothing yet).
    static func list() -> ViewerList {
        ViewerList(user: ana, summaries: [
            ChatSummary(chatID: ChatID(7), contact: ben, lastMessage: message(10, from: ben), unreadCount: 1, lastActivity: start),
            ChatSummary(chatID: ChatID(8), contact: chloe, lastMessage: nil, unreadCount: 0, lastActivity: start.addingTimeInterval(-60)),
        ])
    }

    @Test func anotherPersonsMessageCountsOnceAndOnesOwnNot() {
        var list = Self.list()
        #expect(list.unreadTotal == 1)
        #expect(list.sent(Self.message(11, from: Self.ben, at: 1)) == .init(row: true, unread: true))
        #expect(list.unreadTotal == 2)
        // The read that made the list saw message 10: its event, arriving afterwards, changes no count.
        #expect(list.sent(Self.message(10, from: Self.ben)) == .init(row: false, unread: false))
        #expect(list.sent(Self.message(12, from: Self.ana, at: 2)) == .init(row: true, unread: false))
        #expect(list.unreadTotal == 2)
        #expect(list.chats[ChatID(7)]?.lastMessage?.id == MessageID(12))
    }

    @Test func theChatWithTheNewestMessageIsAtTheTop() {
        var list = Self.list()
        #expect(list.isAtTop(ChatID(7)))
        _ = list.sent(Self.message(11, chat: 8, from: Self.chloe, at: 5))
        #expect(list.isAtTop(ChatID(8)) && !list.isAtTop(ChatID(7)))
        #expect(list.summaries.map(\.chatID) == [ChatID(8), ChatID(7)])
        // A message applied late (another lane's) does not move its older chat to the top.
        _ = list.sent(Self.message(12, from: Self.ben, at: 3))
        #expect(list.isAtTop(ChatID(8)))
    }

    @Test func readingToTheLastMessageClearsTheChatAndAnOlderMarkAsksTheStore() {
        var list = Self.list()
        _ = list.sent(Self.message(11, from: Self.ben, at: 1))
        #expect(list.read(ChatID(7), upTo: MessageID(10)) == .readAgain, "message 11 may be unread still")
        #expect(list.read(ChatID(7), upTo: MessageID(11)) == .changed(.init(row: true, unread: true)))
        #expect(list.unreadTotal == 0)
        // A message the person has read (its read came first) is not counted when its own event follows.
        #expect(list.sent(Self.message(11, from: Self.ben, at: 1)) == .init(row: false, unread: false))
        #expect(list.unreadTotal == 0)
    }

    @Test func aDeletedUnreadMessageNoLongerCountsAndARowFromTheStoreIsTaken() {
        var list = Self.list()
        _ = list.sent(Self.message(11, from: Self.ben, at: 1))
        #expect(list.changed(Self.message(11, from: Self.ben, at: 1, deleted: true)) == .init(row: true, unread: true))
        #expect(list.unreadTotal == 1)
        // One's own deleted message was never unread.
        _ = list.sent(Self.message(12, from: Self.ana, at: 2))
        #expect(list.changed(Self.message(12, from: Self.ana, at: 2, deleted: true)).unread == false)
        let fromStore = ChatSummary(
            chatID: ChatID(7), contact: Self.ben, lastMessage: Self.message(14, from: Self.ben, at: 4), unreadCount: 3,
            lastActivity: Self.start.addingTimeInterval(240), lastRead: MessageID(9)
        )
        #expect(list.replace(fromStore).unread)
        #expect(list.unreadTotal == 3)
        // The store's row saw messages up to 14: their events change no count.
        #expect(list.sent(Self.message(13, from: Self.ben, at: 3)).unread == false)
        #expect(list.unreadTotal == 3)
    }

    @Test func aFeedsPostIsUnreadForEveryMemberAndAContactsNewNameReachesTheirRows() {
        var list = Self.list()
        let post = Message(
            id: MessageID(20), chatID: ChatID(8), senderID: Self.ana.id, body: "news", createdAt: Self.start.addingTimeInterval(600),
            feed: FeedPost(source: "https://example.org/feed", title: "News", link: nil, date: nil, icon: nil)
        )
        #expect(list.sent(post).unread)
        #expect(list.unreadTotal == 2)
        let renamed = User(id: Self.ben.id, handle: "ben", displayName: "Benjamin")
        #expect(list.contactChanged(renamed) == [ChatID(7)])
        #expect(list.chats[ChatID(7)]?.contact?.displayName == "Benjamin")
        #expect(list.contactChanged(renamed).isEmpty, "nothing left to change")
    }
}
