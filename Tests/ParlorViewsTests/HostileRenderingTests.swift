import ParlorFixtures
import ParlorViews
import Testing

// What people type can never become markup: the hostile fixtures render inert.

@Suite struct HostileRenderingTests {
    @Test func hostileStringsRenderAsTextEverywhere() throws {
        let templates = try TemplatesFolder.load()
        let hostile = Fixtures.all.filter { $0.name.hasPrefix("hostile/") }
        #expect(hostile.count >= 4)
        for fixture in hostile {
            let html = fixture.render(with: templates).string
            let lowered = html.lowercased()
            #expect(!lowered.contains("<script>"), "\(fixture.name)")
            #expect(!lowered.contains("<img src=x"), "\(fixture.name)")
            #expect(!lowered.contains("<svg"), "\(fixture.name)")
            #expect(!lowered.contains("href=\"javascript:"), "\(fixture.name)")
            #expect(!lowered.contains("onerror=alert(1)>"), "\(fixture.name)")
            #expect(html.contains("&lt;script&gt;") || html.contains("&quot;&gt;&lt;"), "\(fixture.name)")
        }
    }

    @Test func everyTagThePageOpensIsOneTheTemplatesWrote() throws {
        // The set of element names in the hostile page equals that of the same page with harmless text.
        let templates = try TemplatesFolder.load()
        let hostile = try #require(Fixtures.all.first { $0.name == "hostile/chats-page" })
        let html = hostile.render(with: templates).string
        let tags = Set(html.split(separator: "<").dropFirst().compactMap { $0.split(whereSeparator: { " >/\n".contains($0) }).first.map(String.init) })
        let allowed: Set<String> = [
            "!doctype", "html", "head", "meta", "title", "link", "script", "body", "a", "header", "nav", "span", "form",
            "input", "button", "main", "div", "section", "h1", "h2", "ol", "li", "time", "p", "h3", "label", "textarea", "details", "summary",
        ]
        #expect(tags.subtracting(allowed).isEmpty, "unexpected elements: \(tags.subtracting(allowed))")
        // The only script element is the page's own, loaded from Public/.
        #expect(html.components(separatedBy: "<script").count == 2)
    }

    @Test func theTenThousandCharacterWordIsKeptWhole() throws {
        let templates = try TemplatesFolder.load()
        let hostile = try #require(Fixtures.all.first { $0.name == "hostile/chats-page" })
        let html = hostile.render(with: templates).string
        #expect(html.contains(String(repeating: "W", count: 10_000)))
    }
}
