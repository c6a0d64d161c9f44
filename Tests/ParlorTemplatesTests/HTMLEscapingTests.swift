import ByteOutput
import ParlorTemplates
import Testing

// Every path a user's string takes into HTML is escaped, in text and in attributes.

@Suite struct HTMLEscapingTests {
    private func render(_ template: String, _ page: SamplePage) throws -> String {
        try TwoEngines(page: template).parlor(page)
    }

    @Test func escapesTheFiveCharactersThatMatterInTextAndAttributes() throws {
        var page = SamplePage()
        page.title = #"<script>alert("x")</script> & 'q'"#
        let html = try render(#"<p title="{{title}}">{{title}}</p>"#, page)
        let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;"
        #expect(html == #"<p title=""# + escaped + #"">"# + escaped + "</p>")
    }

    @Test func anAttributeBreakoutStaysInsideItsAttribute() throws {
        var page = SamplePage()
        page.title = #""><img src=x onerror=alert(1)>"#
        let html = try render(#"<a href="/u/{{title}}">x</a>"#, page)
        #expect(html == #"<a href="/u/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">x</a>"#)
        #expect(!html.contains("<img"))
    }

    @Test func escapingWorksInsideListsPartialsAndOptionalSections() throws {
        var page = SamplePage()
        page.contacts = [Contact(name: "<b>", handle: "\"h\"", note: "<i>")]
        page.subtitle = "<u>"
        let html = try TwoEngines(
            page: "{{#contacts}}{{> row}}{{/contacts}}{{#subtitle}}{{.}}{{/subtitle}}",
            partials: ["row": "{{name}}{{handle}}{{#note}}{{.}}{{/note}}"]
        ).parlor(page)
        #expect(html == "&lt;b&gt;&quot;h&quot;&lt;i&gt;&lt;u&gt;")
    }

    @Test func multiByteTextPassesThroughUnchanged() {
        var out = OutputBuffer()
        let text = "Chloé 👩‍👩‍👧 \u{202E}txet\u{202C} 日本語 e\u{301}"
        out.appendEscapingHTML(text)
        #expect(out.string == text)
    }

    @Test func aLessThanSignFollowedByACombiningMarkIsStillEscaped() throws {
        // swift-mustache compares whole Characters, so "<" + U+0338 is one Character and passes unescaped:
        // a browser still sees "<" and a tag could open. Parlor escapes bytes and deliberately differs here.
        var page = SamplePage()
        page.title = "<\u{338}script>"
        let engines = TwoEngines(page: "{{title}}")
        let ours = try engines.parlor(page)
        let theirs = try engines.oracle(page)
        #expect(ours == "&lt;\u{338}script&gt;")
        #expect(theirs == "<\u{338}script&gt;")
    }

    @Test func aVeryLongWordIsEscapedWholeWithoutLosingBytes() {
        var out = OutputBuffer(capacity: 8)
        let word = String(repeating: "a<", count: 5_000)
        out.appendEscapingHTML(word)
        #expect(out.count == 5_000 * 5)
        #expect(out.string == String(repeating: "a&lt;", count: 5_000))
    }
}
