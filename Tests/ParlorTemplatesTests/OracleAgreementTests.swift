import ParlorTemplates
import Testing

// Parlor's renderer must produce swift-mustache's bytes exactly; each case renders through both.

@Suite struct OracleAgreementTests {
    static let cases: [(String, String, [String: String])] = [
        ("variables and escaping", "<h1>{{title}}</h1> {{count}} {{isEmpty}} {{{fragment}}} {{&fragment}}", [:]),
        ("dotted names", "{{owner.name}} (@{{owner.handle}}) {{best.name}}|{{team.lead.name}}", [:]),
        ("list of objects", "<ul>\n{{#contacts}}\n  <li>{{name}}{{#isOnline}} ●{{/isOnline}}</li>\n{{/contacts}}\n</ul>\n", [:]),
        ("inverted sections", "{{^contacts}}none{{/contacts}}{{^isEmpty}}has{{/isEmpty}}{{^best}}no best{{/best}}{{^subtitle}}-{{/subtitle}}", [:]),
        ("optional text section", "{{#subtitle}}<p>{{.}}</p>{{/subtitle}}{{#contacts}}{{#note}}[{{.}}]{{/note}}{{/contacts}}", [:]),
        ("text list", "{{#words}}{{.}},{{/words}}{{#owner}}{{#tags}}<{{.}}>{{/tags}}{{/owner}}", [:]),
        ("outer names from inside a list", "{{#contacts}}{{name}} in {{title}} by {{owner.name}}\n{{/contacts}}", [:]),
        ("anchored names", "{{#owner}}{{.name}}{{/owner}}", [:]),
        ("object section", "{{#owner}}\n  {{name}}\n{{/owner}}\n", [:]),
        ("standalone lines", "a\n  {{#isEmpty}}\n  x\n  {{/isEmpty}}\n  {{^isEmpty}}\n  y\n  {{/isEmpty}}\nb\n", [:]),
        ("standalone comment", "a\n  {{! a comment }}\nb\n {{!x}} c\n{{!\nmulti\nline\n}}\nd", [:]),
        ("comment not standalone", "  {{! c }}x\n  {{!c}}{{title}}\n", [:]),
        ("indented partial", "<ul>\n  {{> item}}\n</ul>\n", ["item": "<li>\n{{#contacts}}\n<b>{{name}}</b>\n{{/contacts}}\n</li>\n"]),
        ("nested indented partials", "<div>\n  {{> outer}}\n</div>", ["outer": "<section>\n  {{> inner}}\n</section>\n", "inner": "{{#words}}\n{{.}}\n{{/words}}\n"]),
        ("inline partial", "[{{> item}}]", ["item": "{{title}}\n!"]),
        ("partial inside list", "{{#contacts}}\n  {{> row}}\n{{/contacts}}\n", ["row": "<tr>\n<td>{{name}}</td>\n</tr>\n"]),
        ("crlf lines", "a\r\n{{#isEmpty}}\r\nx\r\n{{/isEmpty}}\r\n{{title}}\r\n", [:]),
        ("set delimiters", "{{=<% %>=}}\n<% title %> {{title}}\n<%={{ }}=%>\n{{title}}", [:]),
        ("trailing whitespace at end", "{{title}}\n   ", [:]),
        ("tag at end", "{{#isEmpty}}\n{{/isEmpty}}", [:]),
        ("section closing mid-line", "{{#owner}}\nx{{/owner}} {{! c }}\ny\n", [:]),
        ("blank tags of a list in a table", "<table>\n  {{#contacts}}\n  <tr><td>{{name}}</td></tr>\n  {{/contacts}}\n</table>\n", [:]),
        ("spaces inside tags", "{{ title }} {{# owner }}{{ name }}{{/ owner }}", [:]),
    ]

    static let pages: [SamplePage] = {
        var empty = SamplePage()
        empty.contacts = []
        empty.words = []
        empty.isEmpty = true
        empty.subtitle = "Sub <title> & \"quotes\" 'apostrophes'"
        empty.best = Contact(name: "Dana", handle: "dana")
        empty.team = Team(label: "Ops", lead: Contact(name: "Eve", handle: "eve"), members: [])
        var hostile = SamplePage()
        hostile.title = "\"><img src=x onerror=alert(1)><script>alert('x')</script>"
        hostile.contacts = [Contact(name: "javascript:alert(1)", handle: "\u{202E}evil", note: "é\u{301}\u{302} 👩‍👩‍👧 &amp;")]
        return [SamplePage(), empty, hostile]
    }()

    @Test(arguments: cases.indices)
    func rendersTheSameBytesAsSwiftMustache(caseIndex: Int) throws {
        let (label, page, partials) = Self.cases[caseIndex]
        let engines = TwoEngines(page: page, partials: partials)
        for (index, sample) in Self.pages.enumerated() {
            let ours = try engines.parlor(sample)
            let theirs = try engines.oracle(sample)
            #expect(ours == theirs, "\(label), page \(index)")
        }
    }
}
