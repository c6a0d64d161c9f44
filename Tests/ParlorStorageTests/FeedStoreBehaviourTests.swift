import Foundation
import ParlorDomain
import ParlorStorage
import Testing

/// What every FeedStore must do, run against each backend: subscriptions, and checks that post each item
/// once, in order, a few at a time.
@Suite(.serialized) struct FeedStoreBehaviourTests {
    struct World {
        let store: any ChatStore & FeedStore
        let folder: TemporaryFolder
        let ana: User
        let ben: User
        let chloe: User
        let feeds: User
        let chat: Chat

        init(_ kind: StoreKind) async throws {
            folder = try TemporaryFolder()
            store = try await kind.make(in: folder) as! any ChatStore & FeedStore
            (ana, ben, chloe, feeds, chat) = try await Self.people(store)
        }

        /// Opens the SQLite file of `world` again, as a restart does (once `world`'s store is closed).
        init(reopening folder: TemporaryFolder, of world: (User, User, User, User, Chat)) throws {
            self.folder = folder
            store = try SQLiteChatStore(path: folder.path("parlor.sqlite"))
            (ana, ben, chloe, feeds, chat) = world
        }

        var people: (User, User, User, User, Chat) { (ana, ben, chloe, feeds, chat) }

        static func people(_ store: any ChatStore) async throws -> (User, User, User, User, Chat) {
            let ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana"), at: .at(0))
            let ben = try await store.createUser(NewUser(handle: "ben", displayName: "Ben"), at: .at(0))
            let chloe = try await store.createUser(NewUser(handle: "chloe", displayName: "Chloé"), at: .at(0))
            let feeds = try await store.createUser(NewUser(handle: "parlor_feeds", displayName: "Feeds", isBot: true), at: .at(0))
            return (ana, ben, chloe, feeds, try await store.createChat(between: ana.id, and: ben.id, at: .at(0)))
        }

        func subscribe(_ url: String = "https://news.example.org/feed.xml", by person: User? = nil) async throws -> FeedSubscription {
            try await store.subscribe(NewSubscription(chatID: chat.id, subscriberID: (person ?? ana).id, url: url, createdAt: .at(10)), limit: 3)
        }

        func check(_ subscription: FeedSubscription, _ outcome: FeedCheck.Outcome, at seconds: Double, postLimit: Int = 2) async throws -> CheckedFeed? {
            try await store.recordCheck(FeedCheck(
                subscriptionID: subscription.id, checkedAt: .at(seconds), outcome: outcome, nextCheck: .at(seconds + 300), authorID: feeds.id,
                postLimit: postLimit
            ))
        }
    }

    static func items(_ keys: [String], redated: Double = 0) -> [FeedItem] {
        keys.map { FeedItem(key: $0, title: "Item \($0)", link: "https://news.example.org/\($0)", date: .at(redated), text: "About \($0)") }
    }

    static func loaded(_ keys: [String], redated: Double = 0) -> FeedCheck.Outcome {
        .loaded(title: "News", items: items(keys, redated: redated), validators: FeedValidators(etag: "\"v1\""), url: nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aMemberSubscribesOnceAndOthersCannot(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let subscription = try await world.subscribe()
        #expect(subscription.status == .loading && subscription.nextCheck == .at(10) && subscription.title == nil)
        await #expect(throws: Refusal.alreadySubscribed) { try await world.subscribe() }
        await #expect(throws: Refusal.notFound) { try await world.subscribe("https://other.example.org/", by: world.chloe) }
        _ = try await world.subscribe("https://two.example.org/")
        _ = try await world.subscribe("https://three.example.org/")
        await #expect(throws: Refusal.tooManyFeeds(limit: 3)) { try await world.subscribe("https://four.example.org/") }
        #expect(try await world.store.feedSubscriptions(in: world.chat.id, viewer: world.chloe.id) == nil)
        #expect(try await world.store.feedSubscriptions(in: world.chat.id, viewer: world.ben.id)?.map(\.url) == [
            "https://news.example.org/feed.xml", "https://two.example.org/", "https://three.example.org/",
        ])
    }

    @Test(arguments: StoreKind.allCases)
    func theFirstCheckPostsTheNewestItemThenNewOnesFewAtATimeInOrderAndNeverTwice(_ kind: StoreKind) async throws {
        var world: World! = try await World(kind)
        let subscription = try await world.subscribe()
        let first = try #require(try await world.check(subscription, Self.loaded(["a", "b", "c"]), at: 20))
        #expect(first.posted.map(\.feed?.title) == ["Item c"])
        #expect(first.posted.first?.feed == FeedPost(source: "News", title: "Item c", link: "https://news.example.org/c", date: .at(0)))
        #expect(first.posted.first?.body == "About c" && first.posted.first?.senderID == world.feeds.id)
        #expect(first.subscription.status == .loaded(newItems: 1, checkedAt: .at(20)))
        #expect(first.subscription.title == "News" && first.subscription.validators.etag == "\"v1\"" && first.subscription.nextCheck == .at(320))

        // Five new items, the old ones re-dated: two now, oldest first, then the next two, then the last.
        let all = ["a", "b", "c", "d", "e", "f", "g", "h"]
        var posted: [String?] = []
        for round in 0..<4 {
            let checked = try #require(try await world.check(subscription, Self.loaded(all, redated: Double(round)), at: 30 + Double(round)))
            posted += checked.posted.map(\.feed?.title)
        }
        #expect(posted == ["Item d", "Item e", "Item f", "Item g", "Item h"])
        // Every member has them unread; the chat list shows the newest.
        let messages = try await world.store.messages(in: world.chat.id, before: nil, limit: 50).messages
        #expect(messages.count == 6)
        #expect(try await world.store.unreadTotal(for: world.ana.id) == 6)
        #expect(try await world.store.unreadTotal(for: world.ben.id) == 6)
        #expect(try await world.store.chatSummary(world.chat.id, for: world.ana.id)?.lastMessage?.feed?.title == "Item h")

        guard kind == .sqlite else { return }
        // After a restart, the same feed posts nothing again. The first store is closed first: two pools
        // on one file would wait on each other's locks when they close.
        let (folder, people) = (world.folder, world.people)
        world = nil
        let reopened = try World(reopening: folder, of: people)
        let again = try #require(try await reopened.check(subscription, Self.loaded(all, redated: 9), at: 50))
        #expect(again.posted.isEmpty && again.subscription.status == .loaded(newItems: 0, checkedAt: .at(50)))
        #expect(try await reopened.store.message(messages[5].id)?.feed == messages[5].feed, "the feed's fields are stored")
    }

    @Test(arguments: StoreKind.allCases)
    func threeFailuresInARowPauseUntilARetry(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let subscription = try await world.subscribe()
        _ = try await world.check(subscription, Self.loaded(["a"]), at: 20)
        let failed = try #require(try await world.check(subscription, .failed(reason: "the server answered 500"), at: 30))
        #expect(failed.subscription.status == .failed(reason: "the server answered 500", at: .at(30)) && failed.subscription.failures == 1)
        #expect(failed.subscription.nextCheck == .at(330) && failed.subscription.title == "News")
        _ = try await world.check(subscription, .failed(reason: "the server answered 500"), at: 40)
        let paused = try #require(try await world.check(subscription, .failed(reason: "the server answered 404"), at: 50))
        #expect(paused.subscription.status == .paused(reason: "the server answered 404", at: .at(50)))
        #expect(try await world.store.dueFeedSubscriptions(at: .at(1_000_000), limit: 10).isEmpty, "a paused feed is never due")

        let request = FeedRequest(subscriptionID: subscription.id, chatID: world.chat.id, requesterID: world.ben.id, date: .at(60))
        await #expect(throws: Refusal.notFound) {
            try await world.store.retry(FeedRequest(subscriptionID: subscription.id, chatID: world.chat.id, requesterID: world.chloe.id, date: .at(60)))
        }
        let retried = try await world.store.retry(request)
        #expect(retried.status == .loading && retried.failures == 0 && retried.nextCheck == .at(60))
        #expect(try await world.store.dueFeedSubscriptions(at: .at(60), limit: 10).map(\.id) == [subscription.id])
        let notModified = try #require(try await world.check(subscription, .notModified, at: 70))
        #expect(notModified.subscription.status == .loaded(newItems: 0, checkedAt: .at(70)) && notModified.subscription.validators.etag == "\"v1\"")
    }

    @Test(arguments: StoreKind.allCases)
    func unsubscribingKeepsWhatWasPostedAndALaterCheckChangesNothing(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let subscription = try await world.subscribe()
        let posted = try #require(try await world.check(subscription, Self.loaded(["a"]), at: 20)).posted
        let request = FeedRequest(subscriptionID: subscription.id, chatID: world.chat.id, requesterID: world.ana.id, date: .at(30))
        #expect(try await world.store.unsubscribe(request).id == subscription.id)
        await #expect(throws: Refusal.notFound) { try await world.store.unsubscribe(request) }
        #expect(try await world.check(subscription, Self.loaded(["a", "b"]), at: 40) == nil)
        #expect(try await world.store.messages(in: world.chat.id, before: nil, limit: 10).messages == posted)
        // Following it again starts afresh: its first check posts only the newest, which was not posted before.
        let again = try await world.subscribe()
        #expect(try await world.check(again, Self.loaded(["a", "b", "c"]), at: 50)?.posted.map(\.feed?.title) == ["Item c"])
    }

    @Test(arguments: StoreKind.allCases)
    func aPageMovesToTheFeedItNamesUnlessTheChatFollowsThatFeedAlready(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let page = try await world.subscribe("https://news.example.org/")
        let feed = "https://news.example.org/feed.xml"
        let moved = try #require(try await world.check(page, .loaded(title: "News", items: [], validators: FeedValidators(), url: feed), at: 20))
        #expect(moved.subscription.url == feed)
        let other = try await world.subscribe("https://news.example.org/blog")
        let kept = try #require(try await world.check(other, .loaded(title: "News", items: [], validators: FeedValidators(), url: feed), at: 30))
        #expect(kept.subscription.url == "https://news.example.org/blog")
    }

    @Test(arguments: StoreKind.allCases)
    func aFeedsIconIsItsPostsAvatarSeenOnlyByTheChatsMembers(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        guard let images = world.store as? any ImageStore else { Issue.record("no image store"); return }
        let subscription = try await world.subscribe()
        let versions = [StoredImageVersion(role: .avatarSmall, format: .webp, width: 96, height: 96, hash: "ab12", byteCount: 300)]
        let icon = FetchedIcon(url: "https://news.example.org/icon.png", versions: versions)
        let first = try #require(try await world.check(
            subscription, .loaded(title: "News", items: Self.items(["a"]), validators: FeedValidators(), url: nil, icon: icon), at: 20
        ))
        let iconID = try #require(first.subscription.icon?.image)
        #expect(first.subscription.icon?.url == "https://news.example.org/icon.png")
        #expect(first.posted.first?.feed?.icon == iconID)
        #expect(try await images.image(iconID, visibleTo: world.ben.id)?.purpose == .feedIcon)
        #expect(try await images.image(iconID, visibleTo: world.chloe.id) == nil, "not Chloé's chat")
        #expect(try await images.imageHashes().contains("ab12"), "the sweep keeps its files")

        // A later check that brings no icon keeps it for new posts.
        let later = try #require(try await world.check(subscription, Self.loaded(["a", "b"]), at: 30))
        #expect(later.posted.first?.feed?.icon == iconID && later.subscription.icon?.image == iconID)
        #expect(try await world.store.message(later.posted[0].id)?.feed?.icon == iconID)
    }

    @Test(arguments: StoreKind.allCases)
    func aKeyIsRememberedWhileTheFeedListsItAndForgottenLongAfter(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let subscription = try await world.subscribe()
        _ = try await world.check(subscription, Self.loaded(["a", "b"]), at: 20)
        let later = 20 + FeedCheck.keyMemory + 60
        // "b" is still listed, "a" has been gone for longer than the memory: "a" may come back as new.
        _ = try await world.check(subscription, Self.loaded(["b"]), at: later - FeedCheck.keyMemory / 2)
        _ = try await world.check(subscription, Self.loaded(["b", "c"]), at: later)
        let back = try #require(try await world.check(subscription, Self.loaded(["a", "b", "c"]), at: later + 60))
        #expect(back.posted.map(\.feed?.title) == ["Item a"])
    }

    /// One row per feed, however it was found: a page that names a feed the chat follows already goes at its
    /// first check, posting nothing; a page naming a new feed moves to the feed's address.
    @Test(arguments: StoreKind.allCases)
    func aPageNamingAFollowedFeedLeavesOneRow(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let feed = try await world.subscribe("https://news.example.org/feed.xml")
        _ = try await world.check(feed, Self.loaded(["a"]), at: 20)
        let page = try await world.subscribe("https://news.example.org/")
        let found = FeedCheck.Outcome.loaded(
            title: "News", items: Self.items(["a", "b"]), validators: FeedValidators(), url: "https://news.example.org/feed.xml"
        )
        let checked = try #require(try await world.check(page, found, at: 30))
        #expect(checked.duplicateOf == feed.id && checked.posted.isEmpty && checked.subscription.id == page.id)
        #expect(try await world.store.feedSubscriptions(in: world.chat.id, viewer: world.ana.id)?.map(\.id) == [feed.id], "one row for the feed")
        #expect(try await world.check(page, found, at: 40) == nil, "the page's subscription is gone")

        let other = try await world.subscribe("https://weather.example.org/")
        let moved = try #require(try await world.check(other, .loaded(
            title: "Weather", items: Self.items(["x"]), validators: FeedValidators(), url: "https://weather.example.org/rss"
        ), at: 50))
        #expect(moved.duplicateOf == nil && moved.subscription.url == "https://weather.example.org/rss")
    }
}
