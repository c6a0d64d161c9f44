import Foundation
import ParlorDomain
import ParlorViews

extension Fixtures {
    /// The feeds screen in the seed's states (loading, loaded, empty, error), each row state, and a
    /// message a feed posted.
    static var feeds: [Fixture] {
        let world = FixtureWorld()
        let builder = FeedListBuilder(context: world.context)
        let chat = ChatID(7)
        func subscription(_ id: Int64, _ title: String?, _ url: String, _ status: FeedStatus, next: String = "2026-11-20T14:05:00Z") -> FeedSubscription {
            FeedSubscription(
                id: FeedSubscriptionID(id), chatID: chat, subscriberID: world.ana.id, url: url, title: title,
                createdAt: FixtureWorld.date("2026-11-18T10:00:00Z"), status: status, nextCheck: FixtureWorld.date(next)
            )
        }
        let checked = FixtureWorld.date("2026-11-20T13:05:00Z")
        let all = [
            subscription(1, nil, "https://news.example.org/", .loading),
            subscription(2, "Station news", "https://trains.example.org/feed.xml", .loaded(newItems: 3, checkedAt: checked)),
            subscription(3, "Quiet blog", "https://quiet.example.org/atom.xml", .loaded(newItems: 0, checkedAt: checked)),
            subscription(4, "Gone feed", "https://gone.example.org/rss", .failed(reason: "The feed could not be read: the server answered 404", at: checked)),
            subscription(5, "Broken <feed> & co", "https://broken.example.org/rss", .paused(reason: "This address is not a feed: it is not RSS, Atom or JSON Feed", at: checked)),
        ]
        let post = Message(
            id: MessageID(140), chatID: chat, senderID: UserID(6), body: "Trains to Lyon leave from platform 4 all weekend while the tracks are renewed.",
            createdAt: checked,
            feed: FeedPost(
                source: "Station news", title: "Platform changes this weekend", link: "https://trains.example.org/news/42",
                date: FixtureWorld.date("2026-11-19T18:00:00Z"), icon: ImageID(44)
            )
        )
        let untitled = Message(
            id: MessageID(141), chatID: chat, senderID: UserID(6), body: "A short note without a title.", createdAt: checked,
            feed: FeedPost(source: "Station news", title: nil, link: nil, date: nil)
        )
        let cells = MessageCellBuilder(context: world.context)
        return [
            Fixture("feeds-page/loaded", builder.page(chat: chat, heading: .direct(with: world.ben), subscriptions: all, unreadTotal: 3), isPage: true),
            Fixture("feeds-page/empty", builder.page(chat: chat, heading: .direct(with: world.ben), subscriptions: [], unreadTotal: 0), isPage: true),
            Fixture("feeds-page/address-refused", builder.page(
                chat: chat, heading: .direct(with: world.ben), subscriptions: [], unreadTotal: 0, url: "ftp://example.org/feed", errorMessage: Refusal.invalidFeedURL.message
            ), isPage: true),
            Fixture("feed-list/loading", builder.list(chat: chat, subscriptions: [all[0]])),
            Fixture("feed-list/loaded", builder.list(chat: chat, subscriptions: Array(all[1...2]))),
            Fixture("feed-list/failed-and-paused", builder.list(chat: chat, subscriptions: Array(all[3...4]))),
            Fixture("feed-list/empty", builder.list(chat: chat, subscriptions: [])),
            Fixture("feed-list/error", builder.list(chat: chat, subscriptions: nil)),
            Fixture("message-cell/from-a-feed", cells.cell(post, sender: world.ana)),
            Fixture("message-cell/from-a-feed-untitled", cells.cell(untitled, sender: world.ana)),
            Fixture("chat-list-item/last-from-a-feed", ChatListBuilder(context: world.context).item(
                ChatSummary(chatID: chat, contact: world.ben, lastMessage: post, unreadCount: 2, lastActivity: checked), isCurrent: false
            )),
        ]
    }
}
