import Foundation
import HTTPTestSupport
import Synchronization
import Testing

/// Feeds as people use them, through `parlor serve` and a feed server on 127.0.0.1 (allowed for the test
/// by flags): subscribing, the list's states live on a member's page, items posted once and in order,
/// nothing reposted after a restart, and a SIGTERM while a fetch is in flight.
@Suite(.timeLimit(.minutes(2))) struct FeedPollingTests {
    typealias RunningParlor = ServeCommandTests.RunningParlor

    /// A feed whose items can be changed while the test runs.
    final class FeedSite: Sendable {
        final class Items: Sendable {
            let list = Mutex<[(guid: String, title: String, date: String)]>([])
            var current: [(guid: String, title: String, date: String)] { list.withLock { $0 } }
            func change(_ body: @Sendable (inout [(guid: String, title: String, date: String)]) -> Void) { list.withLock { body(&$0) } }
        }

        let items = Items()
        final class Flag: Sendable {
            let value = Atomic(true)
        }

        /// While set, /flaky.xml answers 404.
        let broken = Flag()
        let server: ScriptedServer

        init() throws {
            let items = self.items
            let broken = self.broken
            server = try ScriptedServer { path, _ in
                switch path {
                case "/flaky.xml" where broken.value.load(ordering: .relaxed):
                    return .answer(status: "404 Not Found")
                case "/flaky.xml":
                    let rss = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Flaky</title><item><guid>f1</guid><title>Back</title></item></channel></rss>"
                    return .answer(status: "200 OK", body: Array(rss.utf8))
                case "/feed.xml":
                    let entries = items.current.reversed().map { item in
                        "<item><guid>\(item.guid)</guid><title>\(item.title)</title><link>/posts/\(item.guid)</link><pubDate>\(item.date)</pubDate>"
                            + "<description>&lt;p&gt;About \(item.title) &amp; more&lt;/p&gt;</description></item>"
                    }
                    let rss = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Station news</title>"
                        + "<image><url>/icon.png</url><title>Station news</title></image>\(entries.joined())</channel></rss>"
                    return .answer(status: "200 OK", headers: ["Content-Type: application/rss+xml"], body: Array(rss.utf8))
                case "/icon.png":
                    return .answer(status: "200 OK", headers: ["Content-Type: image/png"], body: FeedSite.icon)
                case "/slow.xml":
                    return .trickle(headers: ["Content-Type: application/rss+xml"], chunk: Array(" ".utf8), interval: .milliseconds(200))
                default:
                    return .answer(status: "404 Not Found")
                }
            }
        }

        /// A 64x64 PNG of one colour.
        static let icon = Array(Data(base64Encoded: """
            iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAAT0lEQVR42u3PQQkAAAgEsItjHGMbywi+hcEKLNP1WgQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQELgt3+gEt40cuyQAAAABJRU5ErkJggg==
            """)!)

        func publish(_ guid: String, _ title: String, date: String = "Tue, 24 Nov 2026 10:00:00 GMT") {
            items.change { $0.append((guid, title, date)) }
        }

        func redate(to date: String) {
            items.change { items in items = items.map { ($0.guid, $0.title, date) } }
        }
    }

    static func start(_ site: FeedSite, database: String? = nil) async throws -> RunningParlor {
        let parlor = try RunningParlor(arguments: [
            "--log-level", "notice", "--feed-port", "\(site.server.port)", "--feed-allow-loopback", "--feed-minimum-interval", "1",
            "--feed-interval", "1", "--feed-round", "0.2", "--feed-post-limit", "2", "--feed-timeout", "60", "--metrics-address", "127.0.0.1",
        ], database: database)
        try await parlor.waitUntilListening()
        return parlor
    }

    /// The titles of feed items in `chat` as `visitor` sees it, in order.
    static func postedTitles(_ visitor: Visitor, _ chat: String) async throws -> [String] {
        let html = try await visitor.get(chat).text
        return html.components(separatedBy: "<p class=\"feed-item-title\">").dropFirst().compactMap { part in
            // The title, linked or not, without the date after it.
            let title = part.components(separatedBy: "</p>").first?.components(separatedBy: "<span class=\"feed-item-date\">").first ?? ""
            return title.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression).trimmingCharacters(in: .whitespaces)
        }
    }

    /// Ana, signed up on `parlor`, and the path of her chat with Ben.
    static func anaWithAChat(on parlor: RunningParlor) async throws -> (Visitor, String) {
        let ana = Visitor(port: parlor.port)
        _ = try await ana.signUp("ana")
        _ = try await Visitor(port: parlor.port).signUp("ben")
        let chat = try await ana.startChat(with: "ben")
        _ = try await ana.get(chat + "/feeds")
        return (ana, chat)
    }

    /// Asks until `condition` holds (at most 10 s).
    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        if try await HTTPTestSupport.eventually(within: 10, every: .milliseconds(100), condition) { return }
        Issue.record("never: \(what)")
        throw ClientError(description: "never: \(what)")
    }

    @Test func aChatFollowsAFeedLiveAndNothingIsPostedTwiceAcrossARestart() async throws {
        let site = try FeedSite()
        defer { site.server.stop() }
        site.publish("1", "Old news", date: "Mon, 23 Nov 2026 09:00:00 GMT")
        site.publish("2", "Platform changes")
        var parlor = try await Self.start(site)
        let ana = Visitor(port: parlor.port), ben = Visitor(port: parlor.port), chloe = Visitor(port: parlor.port)
        _ = try await ana.signUp("ana")
        _ = try await ben.signUp("ben")
        _ = try await chloe.signUp("chloe")
        let chat = try await ana.startChat(with: "ben")
        let feeds = chat + "/feeds"
        let chatNumber = String(chat.split(separator: "/").last!)

        // Ben's feeds page is open: it gets the list (empty), then every state.
        _ = try await ben.get(feeds)
        let (stream, head) = try await ben.openEvents("/events?feeds=\(chatNumber)")
        #expect(head.status == 200)
        _ = try await stream.read(until: "follows no feed yet")

        // A bad address is refused where it was typed, and nothing is stored.
        let page = try await ana.get(feeds)
        #expect(page.status == 200 && page.text.contains("follows no feed yet"))
        let refused = try await ana.post(feeds, [("url", "javascript:alert(1)")])
        #expect(refused.status == 422 && refused.text.contains("Paste the address of a feed") && refused.text.contains("value=\"javascript:alert(1)\""))
        #expect(try await chloe.post(feeds, [("url", site.server.url("/feed.xml"))]).status == 404, "not Chloé's chat")

        let subscribed = try await ana.post(feeds, [("url", site.server.url("/feed.xml"))])
        #expect(subscribed.status == 303)
        #expect(try await ana.post(feeds, [("url", site.server.url("/feed.xml"))]).status == 409)
        let live = try await stream.read(until: "Loaded · 1 new")
        #expect(live.contains("Station news"))
        // The first check posts only the newest item, as a message from the feed.
        try await Self.eventually("the newest item is posted") { try await Self.postedTitles(ben, chat) == ["Platform changes"] }
        let chatPage = try await ben.get(chat).text
        #expect(chatPage.contains("<span class=\"message-author\">Station news</span>"))
        #expect(chatPage.contains("About Platform changes &amp; more"), "the item's HTML as plain text, escaped")
        #expect(chatPage.contains("href=\"\(site.server.url("/posts/2"))\""))
        // The feed's icon is the post's avatar, served to the chat's members only.
        let avatar = try #require(chatPage.range(of: #"/images/\d+/avatarSmall"#, options: .regularExpression).map { String(chatPage[$0]) })
        let picture = try await ben.get(avatar)
        #expect(picture.status == 200 && picture.header("Content-Type")?.hasPrefix("image/") == true)
        #expect(try await chloe.get(avatar).status == 404)
        #expect(site.server.received.filter { $0.path == "/icon.png" }.count == 1)

        // New items arrive a few at a time, in order.
        site.publish("3", "Trains on time")
        site.publish("4", "New timetable")
        site.publish("5", "Night trains")
        try await Self.eventually("three new items are posted in order") {
            try await Self.postedTitles(ben, chat) == ["Platform changes", "Trains on time", "New timetable", "Night trains"]
        }
        #expect(site.server.received.filter { $0.path == "/icon.png" }.count == 1, "an icon is fetched once")
        #expect(try await parlor.terminate() == 0)

        // After a restart, the same items re-dated are not posted again; a new one is.
        site.redate(to: "Wed, 25 Nov 2026 08:00:00 GMT")
        parlor = try await Self.start(site, database: parlor.database)
        let again = Visitor(port: parlor.port)
        _ = try await again.get("/signin")
        _ = try await again.post("/signin", [("handle", "ben"), ("password", "correct horse battery")])
        try await Self.eventually("the feed was checked again") {
            try await again.get(feeds).text.contains("Loaded · nothing new")
        }
        site.publish("6", "Weekend works")
        try await Self.eventually("only the new item is posted") {
            try await Self.postedTitles(again, chat) == ["Platform changes", "Trains on time", "New timetable", "Night trains", "Weekend works"]
        }
        #expect(try await parlor.terminate() == 0)
    }

    @Test func aFetchInFlightAtSIGTERMIsDroppedNotCountedAsAFailure() async throws {
        let site = try FeedSite()
        defer { site.server.stop() }
        var parlor = try await Self.start(site)
        let (ana, chat) = try await Self.anaWithAChat(on: parlor)
        #expect(try await ana.post(chat + "/feeds", [("url", site.server.url("/slow.xml"))]).status == 303)
        try await Self.eventually("the slow feed is being fetched") { site.server.received.contains { $0.path == "/slow.xml" } }
        let started = ContinuousClock.now
        #expect(try await parlor.terminate() == 0)
        // Half the feed timeout (60 s), which a shutdown that waited for the fetch would take; a busy suite's start
        // once held a prompt shutdown for 18 s.
        #expect(ContinuousClock.now - started < .seconds(30), "the fetch does not hold up shutdown")

        parlor = try await Self.start(site, database: parlor.database)
        let back = Visitor(port: parlor.port)
        _ = try await back.get("/signin")
        _ = try await back.post("/signin", [("handle", "ana"), ("password", "correct horse battery")])
        let list = try await back.get(chat + "/feeds").text
        #expect(list.contains("Loading…") && !list.contains("Could not load"), "the interrupted check was not recorded")
        #expect(try await parlor.terminate() == 0)
    }

    @Test func threeFailuresPauseAFeedUntilAMemberRetries() async throws {
        let site = try FeedSite()
        defer { site.server.stop() }
        let parlor = try await Self.start(site)
        let (ana, chat) = try await Self.anaWithAChat(on: parlor)
        let feeds = chat + "/feeds"
        #expect(try await ana.post(feeds, [("url", site.server.url("/flaky.xml"))]).status == 303)
        try await Self.eventually("the first failure shows with its next try") {
            try await ana.get(feeds).text.contains("The feed could not be read: the server answered 404 · next try")
        }
        try await Self.eventually("three failures pause it") {
            try await ana.get(feeds).text.contains("Paused after 3 failed checks in a row. The feed could not be read: the server answered 404")
        }
        let paused = try await ana.get(feeds).text
        let requests = site.server.received.filter { $0.path == "/flaky.xml" }.count
        #expect(requests == 3)
        // Three more rounds of the poller (it counts them on /metrics), not a guess at the clock.
        let rounds = try await metricValue("parlor_feed_poller_rounds", port: parlor.port) ?? 0
        try await Self.eventually("three more rounds") { try await metricValue("parlor_feed_poller_rounds", port: parlor.port) ?? 0 >= rounds + 3 }
        #expect(site.server.received.filter { $0.path == "/flaky.xml" }.count == 3, "a paused feed is not fetched")

        // Retry now, once the feed is back: it loads and posts.
        site.broken.value.store(false, ordering: .relaxed)
        guard let range = paused.range(of: #"formaction="[^"]*/feeds/(\d+)/retry""#, options: .regularExpression) else {
            Issue.record("no Retry now button")
            return
        }
        let retry = String(paused[range].dropFirst("formaction=\"".count).dropLast())
        #expect(try await ana.post(retry, []).status == 303)
        do {
            // What stays: the item posted, and the feed loaded (its line says "1 new" only until the next check, a
            // second later, which a busy machine's page can miss).
            try await Self.eventually("the feed loads again") { try await Self.postedTitles(ana, chat) == ["Back"] }
            try await Self.eventually("the feed says it loaded") { try await ana.get(feeds).text.contains("Loaded · ") }
        } catch {
            // What was fetched, and what Parlor said of it (notices and worse): why the feed did not load.
            Issue.record("the requests: \(site.server.received.map(\.path)); the log:\n\(parlor.logSoFar().split(separator: "\n").suffix(40).joined(separator: "\n"))")
            throw error
        }
        #expect(try await Self.postedTitles(ana, chat) == ["Back"])
        // Operators see the checks by outcome.
        let metrics = try await RawClient(port: parlor.port).exchange("GET", "/metrics").text
        let feedLines = metrics.split(separator: "\n").filter { $0.contains("feed") }.joined(separator: "\n")
        for line in [#"parlor_feed_checks_total{outcome="failed"} 2"#, #"parlor_feed_checks_total{outcome="paused"} 1"#, "parlor_feed_items_posted_total 1"] {
            #expect(metrics.contains(line), "\(line) in:\n\(feedLines)")
        }
        // Loaded once at least: a loaded feed is checked again every second here, finding nothing new.
        let loaded = metrics.split(separator: "\n").first { $0.hasPrefix(#"parlor_feed_checks_total{outcome="loaded"} "#) }
        #expect((loaded?.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= 1, "loaded in:\n\(feedLines)")
        #expect(try await parlor.terminate() == 0)
    }
}
