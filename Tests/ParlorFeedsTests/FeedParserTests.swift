import Foundation
import ParlorDomain
import Testing
@testable import ParlorFeeds

/// Feeds in the shapes real ones come in, written here byte for byte, read as a subscription would post them.
@Suite struct FeedParserTests {
    static func parse(_ text: String, url: String? = nil) throws -> Feed {
        try FeedParser.parse(Array(text.utf8), url: url.flatMap(URL.init(string:)))
    }

    static func date(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

    @Test func rss2WithUndeclaredEntitiesRelativeLinksAndHostileHTML() throws {
        let feed = try Self.parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel><title>Caf&eacute; &amp; news</title><link>https://example.org/blog/</link>
            <atom:link href="https://example.org/feed" rel="self"/>
            <item><title>First&nbsp;post</title><link>posts/1</link><guid isPermaLink="false">post-1</guid>
            <pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate>
            <description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;p&gt;Bye&amp;hellip;&lt;/p&gt;</description>
            <content:encoded><![CDATA[<p>Full <em>text</em> &mdash; here</p><style>p{}</style>]]></content:encoded></item>
            <item><title>No guid, bad link</title><link>javascript:alert(1)</link><dc:date>2003-06-11T08:30:00+02:00</dc:date>
            <description>Plain &amp; &foo; text</description></item>
            <item><title></title><description>Only text</description></item>
            </channel></rss>
            """)
        #expect(feed.title == "Café & news" && feed.link == "https://example.org/blog/")
        #expect(feed.items.count == 3)
        let first = feed.items[0]
        #expect(first.key == "post-1" && first.title == "First post" && first.link == "https://example.org/blog/posts/1")
        #expect(first.date == Self.date("2003-06-10T04:00:00Z"))
        #expect(first.text == "Full text — here", "content:encoded wins, style dropped")
        let second = feed.items[1]
        #expect(second.link == nil, "a javascript: link is never kept")
        #expect(second.key == "hash:" + String(FeedParser.hashKey(title: "No guid, bad link", text: "Plain & &foo; text").dropFirst(5)))
        #expect(second.date == Self.date("2003-06-11T06:30:00Z"))
        #expect(second.text == "Plain & &foo; text", "an unknown entity stays text")
        #expect(feed.items[2].title == nil && feed.items[2].key.hasPrefix("hash:"))
    }

    @Test func windows1252AndISO88591AreReadAsDeclared() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"windows-1252\"?><rss><channel><title>".utf8)
        bytes += [0x93, 0x43, 0x61, 0x66, 0xE9, 0x94, 0x20, 0x80]  // “Café” €
        bytes += Array("</title><item><title>x</title><guid>1</guid></item></channel></rss>".utf8)
        #expect(try FeedParser.parse(bytes).title == "\u{201C}Café\u{201D} €")
        var latin = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>".utf8)
        latin += [0x4E, 0x61, 0xEF, 0x76, 0x65]  // Naïve
        latin += Array("</title></channel></rss>".utf8)
        #expect(try FeedParser.parse(latin).title == "Naïve")
    }

    @Test func rss1RDFTakesItsItemsFromBesideTheChannel() throws {
        let feed = try Self.parse("""
            <?xml version="1.0"?>
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel rdf:about="https://example.net/"><title>RDF site</title><link>https://example.net/</link></channel>
            <item rdf:about="https://example.net/a"><title>A</title><link>https://example.net/a</link><dc:date>2004-01-02</dc:date><description>Alpha</description></item>
            <item rdf:about="https://example.net/b"><title>B</title><link>https://example.net/b</link></item>
            </rdf:RDF>
            """)
        #expect(feed.title == "RDF site" && feed.items.map(\.key) == ["https://example.net/a", "https://example.net/b"])
        #expect(feed.items[0].date == Self.date("2004-01-02T00:00:00Z") && feed.items[0].text == "Alpha")
    }

    @Test func atomWithXMLBaseAndEachContentType() throws {
        let feed = try Self.parse("""
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://example.com/blog/">
            <title type="text">Atom &lt;site&gt;</title><link rel="self" href="/feed.xml"/><link href="./"/>
            <id>urn:uuid:60a76c80</id><updated>2005-07-31T12:29:29Z</updated>
            <entry><id>tag:example.com,2005:1</id><title>HTML</title><link rel="alternate" href="2005/one"/><link rel="edit" href="/edit/1"/>
            <updated>2005-07-31T12:29:29Z</updated><published>2005-07-30T10:00:00.123-05:00</published>
            <content type="html">&lt;p&gt;One &amp;amp; two&lt;/p&gt;</content></entry>
            <entry xml:base="https://other.example/x/"><id>tag:example.com,2005:2</id><title>XHTML</title><link href="two"/>
            <updated>2005-08-01T00:00:00Z</updated>
            <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Three <b>four</b></p></div></content></entry>
            <entry><id>tag:example.com,2005:3</id><title>Text</title><summary>a &lt;b&gt; is not a tag here</summary></entry>
            </feed>
            """)
        #expect(feed.title == "Atom <site>" && feed.link == "https://example.com/blog/")
        #expect(feed.items.map(\.link) == ["https://example.com/blog/2005/one", "https://other.example/x/two", nil])
        #expect(feed.items[0].date == Self.date("2005-07-30T15:00:00Z"), "published before updated")
        #expect(feed.items[0].text == "One & two")
        #expect(feed.items[1].text == "Three four")
        #expect(feed.items[2].text == "a <b> is not a tag here", "type text is plain")
        #expect(feed.items.map(\.key) == ["tag:example.com,2005:1", "tag:example.com,2005:2", "tag:example.com,2005:3"])
    }

    @Test func atomTextConstructsOfEveryTypeInTitlesSummariesAndContent() throws {
        let feed = try Self.parse("""
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:x="http://www.w3.org/1999/xhtml">
            <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Parlor <em>weekly</em> &amp; more</div></title>
            <entry><id>1</id><title type="xhtml"><x:div>Hello <x:b>world</x:b>!</x:div></title>
            <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>One</p><p>Two <a href="/three">three</a></p></div></summary></entry>
            <entry><id>2</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; plain</title>
            <content type="text/html">&lt;p&gt;Markup by media type&lt;/p&gt;</content></entry>
            <entry><id>3</id><title type="text">&lt;b&gt; stays text</title><summary type="html">&lt;i&gt;sum&lt;/i&gt;mary</summary></entry>
            <entry xml:base="https://atom.example/"><id>4</id><title>Out of line</title>
            <content src="https://atom.example/body.html" type="text/html"/><summary>The summary instead</summary></entry>
            <entry><id>5</id><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">  </div></title></entry>
            </feed>
            """)
        #expect(feed.title == "Parlor weekly & more", "an xhtml title keeps its words in order")
        #expect(feed.items.map(\.title) == ["Hello world!", "Bold & plain", "<b> stays text", "Out of line", nil])
        #expect(feed.items[0].text == "One\nTwo three", "xhtml summary: blocks as lines, a relative link not shown without a base")
        #expect(feed.items[1].text == "Markup by media type")
        #expect(feed.items[2].text == "summary")
        #expect(feed.items[3].text == "The summary instead")
    }

    @Test func anRSSItemWithoutALinkUsesItsPermalinkGuid() throws {
        let feed = try Self.parse("""
            <rss version="2.0"><channel><title>Guids</title><link>https://rss.example/</link>
            <item><title>Absent</title><guid>https://rss.example/posts/1</guid></item>
            <item><title>True</title><guid isPermaLink="true">/posts/2</guid></item>
            <item><title>False</title><guid isPermaLink="false">https://rss.example/posts/3</guid></item>
            <item><title>Own link</title><link>https://rss.example/own</link><guid>https://rss.example/posts/4</guid></item>
            <item><title>Not an address</title><guid>post 5</guid></item>
            </channel></rss>
            """)
        #expect(feed.items.map(\.link) == ["https://rss.example/posts/1", "https://rss.example/posts/2", nil, "https://rss.example/own", nil])
        #expect(feed.items.map(\.key) == ["https://rss.example/posts/1", "/posts/2", "https://rss.example/posts/3", "https://rss.example/posts/4", "post 5"])
    }

    @Test func anInternalEntityIsNotExpandedAndItsReferenceStaysAsWrittenInKeysAndText() throws {
        let feed = try Self.parse("""
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY id "42"><!ENTITY name "Parlor">]>
            <rss><channel><title>&name; news</title>
            <item><title>One</title><guid isPermaLink="false">item-&id;</guid></item>
            <item><title>Two</title><guid isPermaLink="false">item-&name;</guid></item>
            </channel></rss>
            """)
        #expect(feed.title == "&name; news")
        #expect(feed.items.map(\.key) == ["item-&id;", "item-&name;"], "distinct, and the same on every check")
    }

    @Test func jsonFeedWithANumericIdAndHTMLContent() throws {
        let feed = try Self.parse("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "JSON site", "home_page_url": "https://json.example/",
             "items": [{"id": 42, "url": "/p/42", "title": "Answer", "content_html": "<p>Forty&nbsp;two</p>", "date_published": "2020-02-02T02:02:02+00:00"},
                       {"id": "b", "content_text": "Plain <text>", "url": "data:text/html,x"}]}
            """)
        #expect(feed.title == "JSON site" && feed.link == "https://json.example/")
        #expect(feed.items[0].key == "42" && feed.items[0].link == "https://json.example/p/42" && feed.items[0].text == "Forty two")
        #expect(feed.items[0].date == Self.date("2020-02-02T02:02:02Z"))
        #expect(feed.items[1].text == "Plain <text>" && feed.items[1].link == nil && feed.items[1].title == nil)
        // A scheme in capitals is still the web, written the usual way (found by FuzzFeedParser).
        #expect(FeedParser.web("HtTpS://json.example/A", base: nil) == "https://json.example/A")
    }

    @Test func whatIsNotAFeedIsRefusedWithItsReason() throws {
        #expect(throws: FeedError.empty) { try Self.parse("") }
        #expect(throws: FeedError.empty) { try Self.parse(" \n\t ") }
        #expect(throws: FeedError.notAFeed) { try Self.parse("<html><body>Hello</body></html>") }
        #expect(throws: FeedError.notAFeed) { try Self.parse("{\"title\": \"no version\"}") }
        #expect(throws: FeedError.notAFeed) { try Self.parse("<rss version=\"2.0\"></rss>") }
        // XMLParser answers true to a document cut short: its error is what counts.
        #expect {
            try Self.parse("<rss><channel><title>Cut")
        } throws: { error in
            if case .malformed = error as? FeedError { return true } else { return false }
        }
        // 200 deep passes libxml2's own limit (256) and stops at Parlor's.
        let deep = String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)
        #expect(throws: FeedError.malformed("elements nested more than 128 deep")) { try Self.parse("<rss>" + deep + "</rss>") }
        // What once crashed Foundation's XMLParser (FuzzFeedParser): refused, or read, never a trap.
        #expect(throws: FeedError.self) { try FeedParser.parse(Array("<?xml version=\"1.0\"?><rss><channel><pubDate".utf8) + [0xFF, 0xFF] + Array(">x</pubDate></channel></rss>".utf8)) }
        #expect(throws: FeedError.self) { try Self.parse("<?xrs?><rssss>ssss>") }
        // An external entity is never fetched nor read.
        let entity = try Self.parse("""
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <rss><channel><title>T</title><item><title>&secret;</title><guid>1</guid></item></channel></rss>
            """)
        #expect(entity.items.first?.title == "&secret;", "the reference stays text; the file is not read")
        #expect(throws: FeedError.tooLarge(bytes: 5_000_000)) { try FeedParser.parse([UInt8](repeating: 0x20, count: 5_000_001)) }
        #expect(FeedError.malformed("x").description == "it is not well-formed (x)")
    }

    @Test(arguments: [
        ("Tue, 10 Jun 2003 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("10 Jun 2003 04:00:00 +0000", "2003-06-10T04:00:00Z"),
        ("Tuesday, 10 June 2003 04:00 EDT", "2003-06-10T08:00:00Z"),
        ("Tue, 10 Jun 03 04:00:00 -0130", "2003-06-10T05:30:00Z"),
        ("Jun 10 2003 04:00:00 PST", "2003-06-10T12:00:00Z"),
        ("Tue, 1 Jun 2003 04:00:00 Z", "2003-06-01T04:00:00Z"),
        ("Tue, 10 Jun 2003", "2003-06-10T00:00:00Z"),
        ("2003-12-13T18:30:02Z", "2003-12-13T18:30:02Z"),
        ("2003-12-13t18:30:02.25+01:00", "2003-12-13T17:30:02Z"),
        ("2003-12-13 18:30", "2003-12-13T18:30:00Z"),
        ("2003-12-13T18:30:02+0100", "2003-12-13T17:30:02Z"),
        ("2003-12-13", "2003-12-13T00:00:00Z"),
        ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59Z"),
    ])
    func datesInTheirRealWorldVariants(text: String, iso: String) {
        #expect(FeedDates.parse(text) == Self.date(iso), "\(text)")
    }

    @Test(arguments: [
        "", "yesterday", "Tue, 32 Jun 2003 04:00:00 GMT", "Tue, 10 Foo 2003 04:00:00 GMT", "2003-13-01T00:00:00Z", "2003-02-30",
        "2003-12-13T25:00:00Z", "2003-12-13T18:30:02+25:00", "Tue, 10 Jun 99999999999999999999 04:00:00 GMT", "10 Jun 2003 04:00:00 XYZ",
        "2003-12-13T18:30:02Zjunk", "Tue, 10 Jun 2003 04:99:00 GMT",
    ])
    func datesThatAreNotDatesAreNil(text: String) {
        #expect(FeedDates.parse(text) == nil, "\(text)")
    }

    @Test func itemsWithoutIdOrLinkKeepTheirKeyAcrossRunsAndSameItemsKeepTheSameKey() {
        // FNV-1a of "Hello\0World" (computed apart, in Python): the same on every machine and every run.
        #expect(FeedParser.hashKey(title: "Hello", text: "World") == "hash:4fbce3330b5d7847")
        #expect(FeedParser.hashKey(title: "Hello", text: "World") == FeedParser.hashKey(title: "Hello", text: "World"))
        #expect(FeedParser.hashKey(title: "Hello", text: "World") != FeedParser.hashKey(title: "HelloW", text: "orld"), "the parts are kept apart")
    }
}

/// Where each format names its icon, resolved like its links.
@Suite struct FeedIconParsingTests {
    static let url = URL(string: "https://news.example.org/feeds/main.xml")

    @Test func eachFormatNamesItsIcon() throws {
        let rss = """
            <rss version="2.0"><channel><title>T</title><image><url>/img/logo.png</url><title>T</title></image></channel></rss>
            """
        #expect(try FeedParser.parse(Array(rss.utf8), url: Self.url).icon == "https://news.example.org/img/logo.png")
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><logo>logo.png</logo><icon>icon.ico</icon></feed>
            """
        #expect(try FeedParser.parse(Array(atom.utf8), url: Self.url).icon == "https://news.example.org/feeds/icon.ico")
        let json = """
            {"version": "https://jsonfeed.org/version/1.1", "title": "T", "favicon": "https://cdn.example/f.png", "items": []}
            """
        #expect(try FeedParser.parse(Array(json.utf8), url: Self.url).icon == "https://cdn.example/f.png")
        let hostile = """
            <rss version="2.0"><channel><title>T</title><image><url>javascript:alert(1)</url></image></channel></rss>
            """
        #expect(try FeedParser.parse(Array(hostile.utf8), url: Self.url).icon == nil)
    }
}

/// Links inside item HTML keep their address, so the posted text still leads where the feed pointed.
@Suite struct ItemLinkTests {
    @Test func aLinkKeepsItsAddressAfterItsTextUnlessItShowsItAlready() throws {
        let rss = """
            <rss version="2.0"><channel><title>T</title><link>https://site.example/blog/</link><item><guid>1</guid>
            <description>&lt;p&gt;Read &lt;a href="report?a=1&amp;amp;b=2"&gt;the report&lt;/a&gt;, &lt;A HREF='https://x.example/a'&gt;https://x.example/a&lt;/A&gt; \
            and &lt;a href="javascript:alert(1)"&gt;this&lt;/a&gt; or &lt;a name="x"&gt;that&lt;/a&gt;.&lt;/p&gt;</description></item></channel></rss>
            """
        let item = try #require(try FeedParser.parse(Array(rss.utf8), url: URL(string: "https://site.example/feed.xml")).items.first)
        #expect(item.text == "Read the report (https://site.example/blog/report?a=1&b=2), https://x.example/a and this or that.")
    }

    @Test func lineBreaksInHTMLSourceAreSpacesButParagraphsAndPreKeepTheirs() {
        #expect(HTMLText.plain("<p>Trains run\nall night</p><p>From\r\nFriday</p>") == "Trains run all night\nFrom Friday")
        #expect(HTMLText.plain("<pre>line one\nline two</pre>after\nthis") == "line one\nline two\nafter this")
    }
}
