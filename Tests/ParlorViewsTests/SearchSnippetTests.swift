import Foundation
import ParlorDomain
import ParlorFixtures
import ParlorViews
import Testing

/// A result's text: plain, on one line, cut around the first match, the matches in runs of their own.
@Suite struct SearchSnippetTests {
    func marked(_ body: String, _ typed: String) -> String {
        SearchSnippet.runs(body, terms: SearchTerm.terms(of: .parse(typed))).map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
    }

    @Test func wordsArePrefixesFoldedLikeTheSearchAndFormattingIsGone() {
        #expect(marked("The *deployment* went well,\nthe deploy too", "deplo") == "The [deployment] went well, the [deploy] too")
        #expect(marked("Meet at the Café Olé", "cafe ole") == "Meet at the [Café] [Olé]")
        #expect(marked("src/foo-bar/baz.swift", "foo-bar") == "src/[foo]-[bar]/baz.swift", "each word of a term")
        #expect(marked("release the train", "\"release train\"") == "[release] the [train]", "a phrase's words, wherever they are")
        #expect(marked("nothing here", "other") == "nothing here")
    }

    @Test func chineseJapaneseAndKoreanAreMarkedWhereTheyOccur() {
        #expect(marked("明日は東京都で会議があります", "東京") == "明日は[東京]都で会議があります")
        #expect(marked("東京と東京", "東京") == "[東京]と[東京]")
        #expect(marked("회의는 서울에서 합니다", "서울 합니다") == "회의는 [서울]에서 [합니다]")
    }

    @Test func hostileTextStaysTextAndAMatchInsideAnEntityIsItsLetters() throws {
        let runs = SearchSnippet.runs("<script>alert(\"x\")</script> &amp; done", terms: SearchTerm.terms(of: .parse("script amp")))
        #expect(runs.map(\.text).joined() == "<script>alert(\"x\")</script> &amp; done", "the text as typed: the template escapes it")
        #expect(runs.filter(\.isMatch).map(\.text) == ["script", "script", "amp"])
        let fixture = try #require(Fixtures.all.first { $0.name == "search-results/best-match-hostile" })
        let html = fixture.render(with: try TemplatesFolder.load()).string
        #expect(html.contains("&lt;<mark>script</mark>&gt;") && html.contains("&amp;<mark>amp</mark>;") && !html.contains("<script>"))
    }

    @Test func longTextIsCutAroundTheFirstMatchAtSpaces() {
        let body = String(repeating: "lead ", count: 60) + "the plan is here " + String(repeating: "tail ", count: 60)
        let runs = SearchSnippet.runs(body, terms: SearchTerm.terms(of: .parse("plan")))
        let text = runs.map(\.text).joined()
        #expect(runs.first?.text == "…" && runs.last?.text == "…")
        #expect(text.count <= SearchSnippet.length + 2)
        #expect(runs.contains { $0.isMatch && $0.text == "plan" })
        #expect(text.hasPrefix("…lead ") && text.contains(" tail"), "cut at spaces, the match near the start")
        let start = String(repeating: "word ", count: 60)
        #expect(SearchSnippet.runs(start, terms: []).first?.text != "…", "no match: the start")
    }
}
