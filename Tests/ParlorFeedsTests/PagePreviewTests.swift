import Foundation
import ParlorFeeds
import Testing

/// What a link's page says of itself, read from hostile pages: tags in the title, pages of megabytes, charsets that
/// lie, addresses that are not the web.
@Suite struct PagePreviewTests {
    func parse(_ html: String, url: String = "https://www.example.org/post/7", type: String? = "text/html; charset=utf-8") -> PagePreview? {
        PagePreview.parse(Array(html.utf8), url: url, contentType: type)
    }

    @Test func openGraphComesFirstThenTwitterThenThePagesOwn() throws {
        let page = """
            <!doctype html><html><head><TITLE>Fallback &amp; title</TITLE>
            <meta name="description" content="Plain description">
            <meta name="twitter:title" content="Twitter title">
            <meta property="og:title" content="Rooms are  here
              at last">
            <meta property="og:site_name" content="Parlor News">
            <meta property='og:image' content='/img/rooms.png'>
            </head><body>…</body></html>
            """
        let preview = try #require(parse(page))
        #expect(preview.title == "Rooms are here at last" && preview.description == "Plain description" && preview.siteName == "Parlor News")
        #expect(preview.imageURL == "https://www.example.org/img/rooms.png", "resolved against the page's address")
        let plain = try #require(parse("<html><head><title>Fallback &amp; title</title></head></html>"))
        #expect(plain == PagePreview(title: "Fallback & title", description: nil, siteName: "example.org", imageURL: nil))
        #expect(parse("<html><head><meta name=description content=x></head><body>No title</body></html>") == nil, "no title, no card")
    }

    @Test func aScriptInTheTitleIsOnlyText() throws {
        let preview = try #require(parse("<title><script>alert(1)</script> &lt;b&gt;Hi</title><meta property=og:description content=\"&lt;img src=x onerror=alert(1)&gt;\">"))
        #expect(preview.title == "<script>alert(1)</script> <b>Hi", "kept as text: the template escapes it")
        #expect(preview.description == "<img src=x onerror=alert(1)>")
        let controls = try #require(parse("<title>Bell\u{7}\u{202E}reversed\u{0}</title>"))
        #expect(controls.title == "Bell reversed", "control and direction characters gone")
    }

    @Test func aPageOfMegabytesIsReadOnlyAsFarAsItsHead() throws {
        let early = "<title>Early</title>" + String(repeating: "<p>filler</p>", count: 1_000_000)
        #expect(parse(early)?.title == "Early")
        let late = String(repeating: "<p>filler</p>", count: 100_000) + "<title>Too late</title>"
        #expect(parse(late) == nil, "past the first 512 KB nothing is read")
        let long = try #require(parse("<title>" + String(repeating: "word ", count: 10_000) + "</title>"))
        #expect(long.title.count == PagePreview.titleLimit && long.title.hasSuffix("…"))
        let unclosed = try #require(parse("<title>" + String(repeating: "a", count: 100_000)))
        #expect(unclosed.title.count == PagePreview.titleLimit)
        #expect(parse("<meta " + String(repeating: "a=b ", count: 50_000)) == nil)
    }

    @Test func charsetsAreBelievedOnlyWhenParlorReadsThem() throws {
        let latin = Array("<title>Caf".utf8) + [0xE9] + Array(" \u{80}".utf8).prefix(1) + [0x80] + Array("</title>".utf8)
        #expect(PagePreview.parse(latin, url: "https://example.org/", contentType: "text/html; charset=ISO-8859-1")?.title == "Café €")
        let declared = Array("<meta charset=\"windows-1252\"><title>Na".utf8) + [0xEF] + Array("ve</title>".utf8)
        #expect(PagePreview.parse(declared, url: "https://example.org/", contentType: "text/html")?.title == "Naïve")
        // UTF-16 or UTF-7 declared over other bytes: read as UTF-8, repaired; "+ADw-script+AD4-" stays letters.
        let utf7 = try #require(PagePreview.parse(Array("<title>+ADw-script+AD4-</title>".utf8), url: "https://example.org/", contentType: "text/html; charset=utf-7"))
        #expect(utf7.title == "+ADw-script+AD4-")
        let broken = try #require(PagePreview.parse(Array("<title>ok ".utf8) + [0xFF, 0xFE] + Array("</title>".utf8), url: "https://example.org/", contentType: "text/html; charset=utf-16"))
        #expect(broken.title == "ok \u{FFFD}\u{FFFD}")
    }

    @Test func anImageIsAWebAddressOrNothing() {
        for image in ["javascript:alert(1)", "data:image/png;base64,AAAA", "file:///etc/passwd", "//", "http://", String(repeating: "a", count: 3_000)] {
            #expect(parse("<title>T</title><meta property=og:image content=\"\(image)\">")?.imageURL == nil, "\(image.prefix(30))")
        }
        #expect(parse("<title>T</title><meta property=og:image content=\"HTTPS://cdn.example.org/a.jpg\">")?.imageURL == "https://cdn.example.org/a.jpg")
        #expect(parse("<title>T</title><meta name=twitter:image content=\"a.jpg\">", url: "http://example.org/x/y")?.imageURL == "http://example.org/x/a.jpg")
    }
}
