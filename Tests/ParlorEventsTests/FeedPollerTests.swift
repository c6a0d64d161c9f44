import Foundation
import ParlorBots
import ParlorDomain
import ParlorEvents
import ParlorLive
import ParlorFeeds
import ParlorViews
import Testing

/// The feed poller as an event source, with feeds from a table and the clock in the test's hands: the
/// feeds screen's states live, posts a few at a time in order, pauses, and Parlor Bot leaving posts alone.
@Suite struct FeedPollerTests {
    static let url = "https://trains.example.org/feed.xml"

    static func rss(_ items: [(String, String)]) -> String {
        let entries = items.reversed().map { "<item><guid>\($0.0)</guid><title>\($0.1)</title><description>About \($0.1)</description></item>" }
        return "<rss version=\"2.0\"><channel><title>Station news</title>\(entries.joined())</channel></rss>"
    }

    /// Every message cell a page received, alone or in a new day's section.
    static func cells(_ page: RecordingListener) -> [MessageCellViewModel] {
        page.fragments.flatMap { fragment in fragment.messageCell.map { [$0] } ?? fragment.daySection?.messages ?? [] }
    }

    @Test(arguments: Backend.allCases)
    func aFeedIsFollowedLiveOnTheFeedsScreenAndPostsInOrder(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        let botWork = Task { await bot.run() }
        defer { botWork.cancel() }
        guard case .created(let chat) = await world.router.send(.creating(creator: world.ana.id, contactHandle: bot.user.handle)) else {
            Issue.record("no chat with the bot"); return
        }
        let fetcher = InMemoryFeedFetcher([Self.url: [.feed(Self.rss([("1", "Old"), ("2", "Newest")]))]])
        let account = try await FeedPoller.account(router: world.events, store: world.store)
        let poller = FeedPoller(
            sink: world.events, store: world.store, checker: FeedChecker(fetcher: fetcher), clock: world.clock,
            author: account.id, postLimit: 2
        )
        // Its checks wait in the workers' queue, made while this runs (``FeedPoller/run()`` runs it beside the rounds).
        let checking = Task { await poller.runChecks() }
        defer { checking.cancel() }
        world.events.addObserver(poller)

        // Ana's feeds screen: the empty list first; Ben may not open it.
        let screen = RecordingListener()
        _ = try await world.handler.register(screen, for: PageSubscription(viewer: world.ana.id, feedsOf: chat.id))
        #expect(screen.fragments.compactMap(\.feedList).last?.emptyText != nil)
        await #expect(throws: Refusal.notFound) {
            try await world.handler.register(RecordingListener(), for: PageSubscription(viewer: world.ben.id, feedsOf: chat.id))
        }
        let (conversation, _) = try await world.page(world.ana, open: chat)

        let refused = await world.router.send(.subscribing(NewSubscription(chatID: chat.id, subscriberID: world.ana.id, url: "ftp://x", createdAt: world.clock.now)))
        #expect(refused == .subscribeFailed(NewSubscription(chatID: chat.id, subscriberID: world.ana.id, url: "ftp://x", createdAt: world.clock.now), reason: .invalidFeedURL))
        guard case .subscribed(let subscription) = await world.router.send(
            .subscribing(NewSubscription(chatID: chat.id, subscriberID: world.ana.id, url: "  " + Self.url, createdAt: world.clock.now))
        ) else { Issue.record("not subscribed"); return }
        #expect(subscription.url == Self.url)
        #expect(screen.fragments.compactMap(\.feedList).last?.items.map(\.stateLine) == ["Loading…"])

        #expect(await poller.pollOnce() == 1)
        await world.handler.settled()
        #expect(screen.fragments.compactMap(\.feedList).last?.items.first?.stateLine.hasPrefix("Loaded · 1 new · checked 2:05") == true)
        #expect(screen.fragments.compactMap(\.feedList).last?.items.first?.title == "Station news")
        let posted = Self.cells(conversation).filter { $0.feedItem != nil }
        #expect(posted.map(\.feedItem?.title) == ["Newest"] && posted.first?.authorLabel == "Station news")
        #expect(await poller.pollOnce() == 0, "not due again before the minimum interval")

        // Three new items: two now, oldest first, the third at the next check.
        fetcher.set(Self.url, [.feed(Self.rss([("1", "Old"), ("2", "Newest"), ("3", "A"), ("4", "B"), ("5", "C")]))])
        world.clock.advance(by: 1_801)
        #expect(await poller.pollOnce() == 1)
        world.clock.advance(by: 1_801)
        #expect(await poller.pollOnce() == 1)
        await world.handler.settled()
        let titles = Self.cells(conversation).compactMap(\.feedItem?.title)
        #expect(titles == ["Newest", "A", "B", "C"])

        // Parlor Bot, a member of this chat, neither reads nor answers what the feed posts.
        await bot.settled()
        let stored = try await world.store.messages(in: chat.id, before: nil, limit: 20).messages
        #expect(stored.allSatisfy { $0.senderID == account.id })
        #expect(try await world.store.membership(chat.id, bot.user.id)?.lastRead == nil)
    }

    @Test func threeFailuresPauseTheFeedAndARetryResumesIt() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let fetcher = InMemoryFeedFetcher([Self.url: [.failure(.status(500, retryAfter: nil))]])
        let account = try await FeedPoller.account(router: world.events, store: world.store)
        let poller = FeedPoller(
            sink: world.events, store: world.store, checker: FeedChecker(fetcher: fetcher), clock: world.clock, author: account.id
        )
        // Its checks wait in the workers' queue, made while this runs (``FeedPoller/run()`` runs it beside the rounds).
        let checking = Task { await poller.runChecks() }
        defer { checking.cancel() }
        let screen = RecordingListener()
        _ = try await world.handler.register(screen, for: PageSubscription(viewer: world.ben.id, feedsOf: chat.id))
        guard case .subscribed(let subscription) = await world.router.send(
            .subscribing(NewSubscription(chatID: chat.id, subscriberID: world.ana.id, url: Self.url, createdAt: world.clock.now))
        ) else { Issue.record("not subscribed"); return }
        for _ in 0..<3 {
            #expect(await poller.pollOnce() == 1)
            world.clock.advance(by: 3_600)
        }
        await world.handler.settled()
        let paused = try #require(screen.fragments.compactMap(\.feedList).last?.items.first)
        #expect(paused.stateLine == "Paused after 3 failed checks in a row. The feed could not be read: the server answered 500")
        #expect(paused.retryURL == "/rooms/\(chat.id)/feeds/\(subscription.id)/retry")
        #expect(await poller.pollOnce() == 0 && fetcher.fetched.count == 3)

        fetcher.set(Self.url, [.feed(Self.rss([("1", "Back")]))])
        let retry = FeedRequest(subscriptionID: subscription.id, chatID: chat.id, requesterID: world.ben.id, date: world.clock.now)
        guard case .retried = await world.router.send(.retrying(retry)) else { Issue.record("not retried"); return }
        #expect(await poller.pollOnce() == 1)
        await world.handler.settled()
        #expect(screen.fragments.compactMap(\.feedList).last?.items.first?.stateLine.hasPrefix("Loaded · 1 new") == true)
        let stranger = FeedRequest(subscriptionID: subscription.id, chatID: chat.id, requesterID: world.chloe.id, date: world.clock.now)
        #expect(await world.router.send(.unsubscribing(stranger)) == .requestFailed(stranger, reason: .notFound))
    }
}
