import ParlorTemplates
import Testing

// A broken template stops the load with the file and line of the mistake and a message for a person.

@Suite struct TemplateErrorTests {
    private func loadError(_ page: String, partials: [String: String] = [:]) -> TemplateLoadError? {
        let sources = [TemplateSource(name: "page", text: page, origin: "Templates/page.mustache")]
            + partials.map { TemplateSource(name: $0.key, text: $0.value, origin: "Templates/\($0.key).mustache") }
        do {
            _ = try TemplateSet(sources: sources, viewModels: [SamplePage.self])
            return nil
        } catch {
            return error
        }
    }

    private func expectError(_ page: String, partials: [String: String] = [:], line: Int, origin: String = "Templates/page.mustache", containing text: String) {
        guard let error = loadError(page, partials: partials) else {
            Issue.record("expected \(page.debugDescription) to be refused")
            return
        }
        #expect(error.errors.count == 1)
        let first = error.errors[0]
        #expect(first.origin == origin)
        #expect(first.line == line)
        #expect(first.message.contains(text), "\(first.message)")
        #expect(error.description.hasPrefix("\(origin):\(line): "))
    }

    @Test func aMisspeltNameStopsTheLoadInsteadOfRenderingBlank() {
        expectError("<h1>{{title}}</h1>\n<p>{{contcat}}</p>\n", line: 2, containing: "no field contcat in SamplePage")
    }

    @Test func aMisspeltNameInsideAListNamesEveryContextSearched() {
        expectError("{{#contacts}}\n\n{{nmae}}\n{{/contacts}}", line: 3, containing: "no field nmae in Contact, SamplePage")
    }

    @Test func aMisspeltNestedFieldIsFound() {
        expectError("{{owner.nmae}}", line: 1, containing: "no field nmae in Contact")
    }

    @Test func anUnclosedSectionPointsAtItsOpeningTag() {
        expectError("a\nb\n{{#contacts}}\n{{name}}\n", line: 3, containing: "{{#contacts}} is never closed")
    }

    @Test func aSectionClosedWithTheWrongNameSaysWhichWasOpen() {
        expectError("{{#contacts}}\n{{/contact}}", line: 2, containing: "closes {{#contacts}} (opened on line 1)")
    }

    @Test func anUnknownPartialIsRefused() {
        expectError("x\n{{> partials/missing }}", line: 2, containing: "no partial named partials/missing")
    }

    @Test func aMistakeInsideAPartialPointsAtThePartialFile() {
        expectError("{{> row}}", partials: ["row": "ok\n{{tittle}}"], line: 2, origin: "Templates/row.mustache", containing: "no field tittle")
    }

    @Test func aPartialThatIncludesItselfIsRefused() {
        expectError("{{> row}}", partials: ["row": "{{> row}}"], line: 1, origin: "Templates/row.mustache", containing: "includes itself")
    }

    @Test func userTextCannotBePrintedUnescaped() {
        expectError("{{{title}}}", line: 1, containing: "without escaping")
        expectError("{{&title}}", line: 1, containing: "without escaping")
    }

    @Test func aListCannotBePrintedAsText() {
        expectError("{{contacts}}", line: 1, containing: "is a list")
        expectError("{{owner}}", line: 1, containing: "is a view model")
    }

    @Test func theImplicitIteratorOnlyPrintsText() {
        expectError("{{#contacts}}{{.}}{{/contacts}}", line: 1, containing: "{{.}} here is a Contact")
    }

    @Test func sectionsThatCouldNeverChangeAreRefused() {
        expectError("{{#title}}x{{/title}}", line: 1, containing: "always show")
        expectError("{{^owner}}x{{/owner}}", line: 1, containing: "never show")
    }

    @Test func anOptionalThatShadowsAnOuterFieldIsRefused() {
        // Contact.note is optional; a page-level `note` would be read by other engines when it is nil.
        struct Shadowing: Renderable {
            static let templateName = "page"
            let note: String
            let contacts: [Contact]
            static let templateFields = TemplateFields<Shadowing>(.text("note", \.note), .list("contacts", \.contacts))
        }
        let source = TemplateSource(name: "page", text: "{{#contacts}}{{note}}{{/contacts}}")
        #expect(throws: TemplateLoadError.self) { try TemplateSet(sources: [source], viewModels: [Shadowing.self]) }
    }

    /// Found by FuzzTemplate: `{{..}}` has no components and stopped the compiler on an index out of range.
    @Test func namesWithEmptyDottedPartsAreRefusedWithTheirLine() {
        for name in ["..", "...", "a..b", "a.", "owner..name", "..owner"] {
            expectError("<p>\n{{\(name)}}", line: 2, containing: "joined by single dots")
            expectError("{{#\(name)}}x{{/\(name)}}", line: 1, containing: "joined by single dots")
        }
    }

    @Test func unsupportedMustacheFeaturesAreNamed() {
        expectError("{{title(upper)}}", line: 1, containing: "transforms")
        expectError("{{<base}}{{/base}}", line: 1, containing: "inheritance")
        expectError("{{>*dynamic}}", line: 1, containing: "dynamic partials")
        expectError("{{%CONTENT_TYPE: TEXT}}", line: 1, containing: "pragmas")
    }

    @Test func malformedTagsAreRefused() {
        expectError("ok\n{{title", line: 2, containing: "not closed")
        expectError("{{ti tle}}", line: 1, containing: "not closed")
        expectError("{{! never closed", line: 1, containing: "comment is never closed")
        expectError("{{= <% =}}", line: 1, containing: "set-delimiter")
        expectError("{{/contacts}}", line: 1, containing: "never opened")
    }

    @Test func everyMistakeIsReportedAtOnceInFileOrder() {
        let sources = [
            TemplateSource(name: "page", text: "{{> b}}{{> c}}", origin: "a.mustache"),
            TemplateSource(name: "b", text: "{{#x}}", origin: "b.mustache"),
            TemplateSource(name: "c", text: "\n{{/y}}", origin: "c.mustache"),
        ]
        #expect {
            try TemplateSet(sources: sources, viewModels: [SamplePage.self])
        } throws: { error in
            guard let error = error as? TemplateLoadError else { return false }
            return error.errors.map(\.origin) == ["b.mustache", "c.mustache"] && error.errors.map(\.line) == [1, 2]
        }
    }

    @Test func aTemplateNoOneUsesIsListed() throws {
        let set = try TemplateSet(
            sources: [TemplateSource(name: "page", text: "{{> used}}"), TemplateSource(name: "used", text: ""), TemplateSource(name: "orphan", text: "")],
            viewModels: [SamplePage.self]
        )
        #expect(set.unusedTemplates == ["orphan"])
    }
}
