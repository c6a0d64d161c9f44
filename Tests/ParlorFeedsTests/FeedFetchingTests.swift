import Foundation
import HTTPTestSupport
import OutboundHTTP
import ParlorDomain
import Testing
@testable import ParlorFeeds
@testable import ParlorFeedsHTTP

/// The real fetcher against a scripted server on 127.0.0.1 (allowed by its policy, on that port only):
/// conditional GETs, redirects checked hop by hop, limits on time and size, compressed bodies, pages
/// that name their feed.
@Suite(.timeLimit(.minutes(3))) struct FeedFetchingTests {
    static let rss = """
        <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Station news</title><ttl>90</ttl>
        <item><guid>n1</guid><title>Platform changes</title><link>/news/1</link></item></channel></rss>
        """
    static let gzippedRSS = Array(Data(base64Encoded: """
        H4sIAAAAAAACA7Oxr8jNUShLLSrOzM+zVTLUM1Cyt7MpKi5GiBkBxexskjMS8/JSc+xsSjJLclLtojILClJTbPQhPJvMktRcO5v00swUuypDG30wA6rSOT+3oCi1uDg1RQGkCq5FH6JHH26wPtBWOwCR74PNkAAAAA==
        """)!)

    /// 494 bytes of gzip that inflate to a 400 KB feed of spaces.
    static let inflatingRSS = Array(Data(base64Encoded: """
        H4sIAADSCGsC/+3IwQnCMABA0VVKBzDqOabgJrUEWkhTaIo4voIHN/D03unz4/BaS/fMe1u2eusvp3M/pLi39nvXz0txmsdac0nxWI6S
        031bHzF8uwMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        AAAAAIA/iGGax1pzSTHsraU3Ho80FNQaBgA=
        """, options: .ignoreUnknownCharacters)!)

    /// A fetch's deadline where the test is not about deadlines: far above a loopback answer, and above what a
    /// busy machine (the suite's start, when a chain of six hops once took more than 30 s) can hold a test back.
    static let deadline = Duration.seconds(90)

    static func fetcher(_ server: ScriptedServer, timeout: Duration = deadline, byteLimit: Int = 200_000) -> HTTPFeedFetcher {
        HTTPFeedFetcher(policy: AddressPolicy(ports: [server.port], allowsLoopback: true), timeout: timeout, byteLimit: byteLimit)
    }

    @Test func aFeedIsFetchedThenAskedForOnlyIfItChanged() async throws {
        let server = try ScriptedServer { _, headers in
            if headers["if-none-match"] == "\"v1\"" { return .answer(status: "304 Not Modified", headers: ["Cache-Control: max-age=900"]) }
            return .answer(status: "200 OK", headers: ["Content-Type: application/rss+xml", "ETag: \"v1\"", "Last-Modified: Tue, 24 Nov 2026 10:00:00 GMT"], body: Array(Self.rss.utf8))
        }
        defer { server.stop() }
        let fetcher = Self.fetcher(server)
        let first = try await fetcher.fetch(server.url("/feed.xml"), validators: FeedValidators())
        #expect(first.body == Array(Self.rss.utf8))
        #expect(first.validators == FeedValidators(etag: "\"v1\"", lastModified: "Tue, 24 Nov 2026 10:00:00 GMT"))
        let second = try await fetcher.fetch(server.url("/feed.xml"), validators: first.validators)
        #expect(second.body == nil && second.maxAge == 900)
        #expect(server.received.last?.headers["if-modified-since"] == "Tue, 24 Nov 2026 10:00:00 GMT")
        #expect(server.received.last?.headers["user-agent"]?.hasPrefix("Parlor") == true)
    }

    @Test func redirectsAreFollowedUpToFiveEachHopChecked() async throws {
        let server = try ScriptedServer { path, _ in
            switch path {
            case "/moved": .answer(status: "301 Moved Permanently", headers: ["Location: /hop/1"])
            case let hop where hop.hasPrefix("/hop/"):
                Int(hop.dropFirst(5)).map { $0 < 3 ? .answer(status: "302 Found", headers: ["Location: /hop/\($0 + 1)"]) : .answer(status: "200 OK", body: Array(Self.rss.utf8)) }
                    ?? .answer(status: "400 Bad Request")
            case "/loop": .answer(status: "302 Found", headers: ["Location: /loop"])
            case "/to-private": .answer(status: "302 Found", headers: ["Location: http://10.1.2.3/feed.xml"])
            case "/to-metadata": .answer(status: "307 Temporary Redirect", headers: ["Location: http://[::ffff:169.254.169.254]/latest/"])
            case "/to-other-port": .answer(status: "308 Permanent Redirect", headers: ["Location: http://127.0.0.1:9/feed.xml"])
            case "/to-ftp": .answer(status: "302 Found", headers: ["Location: ftp://example.org/feed.xml"])
            default: .answer(status: "404 Not Found")
            }
        }
        defer { server.stop() }
        // Port 80 allowed too, so a redirect to a private address is refused for its address.
        let fetcher = HTTPFeedFetcher(policy: AddressPolicy(ports: [server.port, 80], allowsLoopback: true), timeout: Self.deadline)
        let followed = try await fetcher.fetch(server.url("/moved"), validators: FeedValidators())
        #expect(followed.url == server.url("/hop/3") && followed.body == Array(Self.rss.utf8))
        await #expect(throws: FeedFetchError.tooManyRedirects) { try await fetcher.fetch(server.url("/loop"), validators: FeedValidators()) }
        #expect(server.received.filter { $0.path == "/loop" }.count == 6, "the first request and five redirects")
        await #expect(throws: FeedFetchError.addressNotPublic("10.1.2.3")) { try await fetcher.fetch(server.url("/to-private"), validators: FeedValidators()) }
        await #expect(throws: FeedFetchError.addressNotPublic("::ffff:169.254.169.254")) {
            try await fetcher.fetch(server.url("/to-metadata"), validators: FeedValidators())
        }
        await #expect(throws: FeedFetchError.portNotAllowed(9)) { try await fetcher.fetch(server.url("/to-other-port"), validators: FeedValidators()) }
        await #expect(throws: FeedFetchError.invalidAddress) { try await fetcher.fetch(server.url("/to-ftp"), validators: FeedValidators()) }
        await #expect(throws: FeedFetchError.status(404, retryAfter: nil)) { try await fetcher.fetch(server.url("/nothing"), validators: FeedValidators()) }
    }

    @Test func loopbackAndOtherPortsAreRefusedUnlessAllowed() async throws {
        let server = try ScriptedServer { _, _ in .answer(status: "200 OK", body: Array(Self.rss.utf8)) }
        defer { server.stop() }
        let strict = HTTPFeedFetcher(policy: AddressPolicy(ports: [server.port]), timeout: Self.deadline)
        await #expect(throws: FeedFetchError.addressNotPublic("127.0.0.1")) { try await strict.fetch(server.url("/"), validators: FeedValidators()) }
        await #expect(throws: FeedFetchError.addressNotPublic("localhost")) {
            try await strict.fetch("http://localhost:\(server.port)/", validators: FeedValidators())
        }
        let defaultPorts = HTTPFeedFetcher(policy: AddressPolicy(allowsLoopback: true), timeout: Self.deadline)
        await #expect(throws: FeedFetchError.portNotAllowed(server.port)) { try await defaultPorts.fetch(server.url("/"), validators: FeedValidators()) }
        #expect(server.received.isEmpty, "nothing refused was connected to")
    }

    @Test func aSlowBodyTimesOutAndAnEndlessOneStopsAtTheLimit() async throws {
        let server = try ScriptedServer { path, _ in
            path == "/slow"
                ? .trickle(headers: ["Content-Type: application/rss+xml"], chunk: Array("<!-- slow -->".utf8), interval: .milliseconds(200))
                : .trickle(headers: ["Content-Type: application/rss+xml"], chunk: [UInt8](repeating: 0x20, count: 16_384), interval: .milliseconds(1))
        }
        defer { server.stop() }
        let fetcher = Self.fetcher(server, timeout: .seconds(2), byteLimit: 100_000)
        let started = ContinuousClock.now
        await #expect(throws: FeedFetchError.timedOut) { try await fetcher.fetch(server.url("/slow"), validators: FeedValidators()) }
        // The body never ends: ending at all is the deadline's doing. The bound leaves room for a busy machine: at the
        // suite's start a 2 s deadline once ended the fetch after 23 s (the outbound client's own test allows 90 s).
        #expect(ContinuousClock.now - started < .seconds(90))
        // An endless body stops at the size limit, long before a deadline a suite busy with browsers could reach.
        let patient = Self.fetcher(server, timeout: .seconds(60), byteLimit: 100_000)
        await #expect(throws: FeedFetchError.tooLarge(bytes: 100_000)) { try await patient.fetch(server.url("/endless"), validators: FeedValidators()) }
    }

    @Test func compressedBodiesAndWrongContentTypesAreStillRead() async throws {
        let server = try ScriptedServer { path, _ in
            path == "/gzip"
                ? .answer(status: "200 OK", headers: ["Content-Type: application/rss+xml", "Content-Encoding: gzip"], body: Self.gzippedRSS)
                : .answer(status: "200 OK", headers: ["Content-Type: text/plain"], body: Array(Self.rss.utf8))
        }
        defer { server.stop() }
        let checker = FeedChecker(fetcher: Self.fetcher(server))
        guard case .feed(let zipped, _, nil) = try await checker.read(server.url("/gzip")) else { Issue.record("not read"); return }
        #expect(zipped.title == "Zipped" && zipped.items.map(\.key) == ["z1"])
        #expect(server.received.first?.headers["accept-encoding"]?.contains("gzip") == true)
        guard case .feed(let plain, _, nil) = try await checker.read(server.url("/plain")) else { Issue.record("not read"); return }
        #expect(plain.items.first?.link == server.url("/news/1"), "relative links resolve against the feed's address")
        #expect(plain.ttl == 90)
    }

    /// A small compressed body that inflates past the limit is too large, said with the fetcher's own limit; one
    /// that does not inflate at all is a broken answer, not a large one.
    @Test func aBodyThatInflatesPastTheLimitIsTooLargeAndOneThatCannotInflateIsBroken() async throws {
        let server = try ScriptedServer { path, _ in
            .answer(
                status: "200 OK", headers: ["Content-Type: application/rss+xml", "Content-Encoding: gzip"],
                body: path == "/bomb" ? Self.inflatingRSS : Array("this is not gzip".utf8)
            )
        }
        defer { server.stop() }
        let fetcher = Self.fetcher(server, byteLimit: 100_000)
        await #expect(throws: FeedFetchError.tooLarge(bytes: 100_000)) { try await fetcher.fetch(server.url("/bomb"), validators: FeedValidators()) }
        await #expect(throws: FeedFetchError.connectionFailed) { try await fetcher.fetch(server.url("/broken"), validators: FeedValidators()) }
    }

    @Test func aPageThatNamesItsFeedIsFollowedToIt() async throws {
        let server = try ScriptedServer { path, _ in
            switch path {
            case "/": .answer(status: "200 OK", headers: ["Content-Type: text/html; charset=utf-8"], body: Array("""
                <!DOCTYPE html><html><head><title>News</title>
                <LINK rel="stylesheet" href="/site.css"><link type="application/rss+xml" rel="alternate" title="RSS" href="/feed.xml?a=1&amp;b=2">
                </head><body>Hello</body></html>
                """.utf8))
            case "/feed.xml?a=1&b=2": .answer(status: "200 OK", headers: ["Content-Type: application/rss+xml"], body: Array(Self.rss.utf8))
            case "/empty-page": .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array("<html><body>No feed</body></html>".utf8))
            default: .answer(status: "503 Service Unavailable", headers: ["Retry-After: 120"])
            }
        }
        defer { server.stop() }
        let checker = FeedChecker(fetcher: Self.fetcher(server))
        guard case .feed(let feed, _, let moved) = try await checker.read(server.url("/")) else { Issue.record("not read"); return }
        #expect(feed.title == "Station news" && moved == server.url("/feed.xml?a=1&b=2"))
        await #expect(throws: FeedChecker.NoFeedOnPage.self) { try await checker.read(server.url("/empty-page")) }
        await #expect(throws: FeedFetchError.status(503, retryAfter: 120)) { try await checker.read(server.url("/busy")) }
    }

    /// The feeds list says what went wrong in a person's words, never the parser's.
    @Test func aFailedCheckSaysWhatTheAddressIs() async throws {
        let server = try ScriptedServer { path, _ in
            switch path {
            case "/page": .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array("<html><body>No feed</body></html>".utf8))
            case "/text": .answer(status: "200 OK", headers: ["Content-Type: text/plain"], body: Array("Opening hours: 9 to 5".utf8))
            case "/xml": .answer(status: "200 OK", headers: ["Content-Type: application/xml"], body: Array("<?xml version=\"1.0\"?><note>hi</note>".utf8))
            default: .answer(status: "404 Not Found", headers: [])
            }
        }
        defer { server.stop() }
        let checker = FeedChecker(fetcher: Self.fetcher(server))
        let now = Date()
        func reason(_ path: String) async -> String? {
            let subscription = FeedSubscription(
                id: FeedSubscriptionID(1), chatID: ChatID(1), subscriberID: UserID(1), url: server.url(path), title: nil, createdAt: now, status: .loading, nextCheck: now, failures: 0
            )
            guard case .failed(let reason)? = await checker.check(subscription, now: now)?.outcome else { return nil }
            return reason
        }
        #expect(await reason("/page") == "This address is a web page, not a feed, and the page names none")
        #expect(await reason("/text") == "The feed could not be read: it is not well-formed (it breaks off at line 1)")
        #expect(await reason("/xml") == "This address is not a feed: it is not RSS, Atom or JSON Feed")
        #expect(await reason("/gone") == "The feed could not be read: the server answered 404")
        #expect(FeedError.tooLarge(bytes: 512_000).description == "the feed is larger than 512 KB")
    }

    @Test func checksAreScheduledByWhatTheFeedAndServerAskNeverSoonerThanTheMinimum() async throws {
        let fetcher = InMemoryFeedFetcher([
            "https://a.example/ttl": [.feed(Self.rss)],
            "https://a.example/busy": [.failure(.status(503, retryAfter: 7_200))],
            "https://a.example/gone": [.failure(.status(404, retryAfter: nil))],
        ])
        let checker = FeedChecker(fetcher: fetcher, minimumInterval: 300, defaultInterval: 1_800)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func subscription(_ url: String, failures: Int = 0) -> FeedSubscription {
            FeedSubscription(id: FeedSubscriptionID(1), chatID: ChatID(1), subscriberID: UserID(1), url: url, title: nil, createdAt: now, status: .loading, nextCheck: now, failures: failures)
        }
        #expect(try #require(await checker.check(subscription("https://a.example/ttl"), now: now)).next == now + 90 * 60)
        #expect(try #require(await checker.check(subscription("https://a.example/busy"), now: now)).next == now + 7_200)
        let gone = try #require(await checker.check(subscription("https://a.example/gone"), now: now))
        #expect(gone.outcome == .failed(reason: "The feed could not be read: the server answered 404") && gone.next == now + 300)
        #expect(try #require(await checker.check(subscription("https://a.example/gone", failures: 1), now: now)).next == now + 900)
        #expect(checker.interval(60) == 300, "a server asking for a minute still waits five")
        #expect(checker.interval(nil) == 1_800)
    }
}
