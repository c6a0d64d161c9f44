import Foundation
import Testing
@testable import ParlorFeeds

/// Pages that name their feed the ways real sites write it, and the headers that say when to ask again.
@Suite struct FeedDiscoveryTests {
    static let base = URL(string: "https://site.example/blog/post")

    @Test func theAlternateFeedsOfAPageAreFoundInOrderAndResolved() {
        let page = """
            <!doctype html><html><head>
            <link rel="stylesheet" href="/style.css">
            <link rel="alternate" hreflang="fr" href="/fr/">
            <LINK REL="Alternate" TYPE="application/atom+xml" HREF="../atom.xml">
            <link rel=alternate type=application/rss+xml href=/rss?a=1&amp;b=2 title=RSS>
            <link rel="alternate" type="application/feed+json; charset=utf-8" href='https://other.example/feed.json'/>
            <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
            <link rel="alternate" type="application/rss+xml" href="/rss?a=1&b=2">
            </head><body><a rel="alternate" type="application/rss+xml" href="/not-a-link-tag">x</a></body></html>
            """
        #expect(FeedDiscovery.feeds(inPage: Array(page.utf8), base: Self.base) == [
            "https://site.example/atom.xml", "https://site.example/rss?a=1&b=2", "https://other.example/feed.json",
        ])
    }

    @Test func pagesWithoutFeedsAndBrokenTagsGiveNothing() {
        for page in ["", "<link", "<link rel=\"alternate\" type=\"application/rss+xml\"", "<linked rel=alternate type=application/rss+xml href=/x>", "<p>no head</p>"] {
            #expect(FeedDiscovery.feeds(inPage: Array(page.utf8), base: Self.base).isEmpty, "\(page)")
        }
    }

    @Test func htmlIsToldFromAFeedByTypeOrByItsFirstBytes() {
        #expect(FeedDiscovery.looksLikeHTML([], contentType: "text/html; charset=utf-8"))
        #expect(FeedDiscovery.looksLikeHTML(Array("\n<!DOCTYPE HTML>".utf8), contentType: "text/plain"))
        #expect(!FeedDiscovery.looksLikeHTML(Array("<?xml version=\"1.0\"?><rss>".utf8), contentType: "application/xml"))
    }

    @Test func cacheHeadersAreReadAndBounded() {
        #expect(CacheHeaders.maxAge("public, max-age=600") == 600)
        #expect(CacheHeaders.maxAge("MAX-AGE=\"60\"") == 60)
        #expect(CacheHeaders.maxAge("max-age=99999999999999999999999") == CacheHeaders.week)
        #expect(CacheHeaders.maxAge("max-age=-5") == nil && CacheHeaders.maxAge("no-cache") == nil)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(CacheHeaders.retryAfter("120", now: now) == 120)
        #expect(CacheHeaders.retryAfter(now.addingTimeInterval(3_600).formatted(.iso8601), now: now) == 3_600)
        #expect(CacheHeaders.retryAfter("Thu, 01 Jan 1970 00:00:00 GMT", now: now) == 0)
        #expect(CacheHeaders.retryAfter("soon", now: now) == nil)
    }
}
