import ParlorViews
import Testing

// Counts, previews, initials and links, formatted once in the builders and nowhere else.

@Suite struct FormattingTests {
    @Test func unreadCountsReadAsPeopleExpect() {
        #expect(CountLabels.badge(0) == nil)
        #expect(CountLabels.badge(3) == "3")
        #expect(CountLabels.badge(99) == "99")
        #expect(CountLabels.badge(100) == "99+")
        #expect(CountLabels.unreadLabel(1) == "1 unread message")
        #expect(CountLabels.unreadLabel(7) == "7 unread messages")
        #expect(CountLabels.pageTitle("Parlor", unread: 3) == "(3) Parlor")
        #expect(CountLabels.pageTitle("Parlor", unread: 0) == "Parlor")
        #expect(CountLabels.pageTitle("Parlor", unread: 1_000) == "(99+) Parlor")
    }

    @Test func previewsAreOneLineAndCutOnACharacterBoundary() {
        #expect(TextPreview.excerpt("  See you\n\tat   six  ") == "See you at six")
        #expect(TextPreview.excerpt("abcdef", limit: 4) == "abcd…")
        #expect(TextPreview.excerpt("abcd", limit: 4) == "abcd")
        let family = "👩‍👩‍👧‍👦"
        let cut = TextPreview.excerpt(String(repeating: family, count: 10), limit: 3)
        #expect(cut == family + family + family + "…")
        let accented = TextPreview.excerpt("e\u{301}e\u{301}e\u{301}", limit: 2)
        #expect(accented == "e\u{301}e\u{301}…")
        #expect(TextPreview.excerpt(String(repeating: "W", count: 10_000)).count == 81)
    }

    @Test func initialsComeFromTheNameElseTheHandle() {
        #expect(Initials.of(displayName: "Ana Lima", handle: "ana") == "AL")
        #expect(Initials.of(displayName: "Chloé Marie Martin", handle: "c") == "CM")
        #expect(Initials.of(displayName: "élodie", handle: "e") == "É")
        #expect(Initials.of(displayName: "🎉 ", handle: "zed") == "Z")
        #expect(Initials.of(displayName: "", handle: "_") == "?")
    }

    @Test func avatarColoursDependOnTheIdAloneAndUseThePalette() {
        let indices = (1...500).map { Initials.paletteIndex(for: Int64($0)) }
        #expect(indices.allSatisfy { (0..<Initials.paletteSize).contains($0) })
        #expect(Set(indices).count == Initials.paletteSize, "every colour is used")
        #expect(Initials.paletteIndex(for: 42) == Initials.paletteIndex(for: 42))
        // Pinned: a person's colour must not change between releases.
        #expect([1, 2, 3, 4].map { Initials.paletteIndex(for: Int64($0)) } == [0, 3, 2, 9])
    }

    @Test func onlyWebURLsBecomeLinks() {
        let segments = Linkifier.segments("see https://a.example/x?y=1, www.b.example. and javascript:alert(1) or (http://c.example/p)")
        #expect(segments.map(\.url) == [nil, "https://a.example/x?y=1", nil, "https://www.b.example", nil, "http://c.example/p", nil])
        #expect(segments.map(\.text).joined() == "see https://a.example/x?y=1, www.b.example. and javascript:alert(1) or (http://c.example/p)")
        #expect(Linkifier.segments("data:text/html,<b>x</b>").allSatisfy { $0.url == nil })
        #expect(Linkifier.segments("nohttps://x.example").allSatisfy { $0.url == nil })
        #expect(Linkifier.segments("https://").allSatisfy { $0.url == nil })
        #expect(Linkifier.segments("").isEmpty)
    }

    /// Found by FuzzLinkifier: "www." at the end of a sentence became a link to the relative URL "www".
    @Test func textAroundAndInsideLinksIsNeverLostOrDoubled() {
        for text in ["\u{FFFD}+*\nwww.\"", "www.", "www..", "http://.", "(www.)", "a www.\" b", "https://,"] {
            let segments = Linkifier.segments(text)
            #expect(segments.map(\.text).joined() == text, "\(text.debugDescription): \(segments)")
            for case let url? in segments.map(\.url) { #expect(url.hasPrefix("http://") || url.hasPrefix("https://"), "\(url)") }
        }
        #expect(Linkifier.segments("see www.").allSatisfy { $0.url == nil }, "\"www\" is no address")
    }

    @Test func aLinkStopsAtCharactersThatCannotBeInAURL() {
        let segments = Linkifier.segments("https://example.com/\"><script>x</script>")
        #expect(segments.first?.url == "https://example.com/")
        #expect(segments.map(\.text).joined() == "https://example.com/\"><script>x</script>")
    }
}
