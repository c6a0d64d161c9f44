import ParlorTemplates

// Small view models that exercise every field kind the engine supports.

struct Contact: TemplateContext {
    let name: String
    let handle: String
    let isOnline: Bool
    let note: String?
    let tags: [String]

    init(name: String, handle: String, isOnline: Bool = false, note: String? = nil, tags: [String] = []) {
        self.name = name
        self.handle = handle
        self.isOnline = isOnline
        self.note = note
        self.tags = tags
    }

    static let templateFields = TemplateFields<Contact>(
        .text("name", \.name),
        .text("handle", \.handle),
        .flag("isOnline", \.isOnline),
        .text("note", \.note),
        .list("tags", \.tags)
    )
}

struct Team: TemplateContext {
    let label: String
    let lead: Contact
    let members: [Contact]

    static let templateFields = TemplateFields<Team>(
        .text("label", \.label),
        .object("lead", \.lead),
        .list("members", \.members)
    )
}

struct SamplePage: Renderable {
    static let templateName = "page"

    var title: String = "Parlor"
    var count: Int = 3
    var isEmpty: Bool = false
    var fragment: String = "<b>bold</b>"
    var owner: Contact = Contact(name: "Ana", handle: "ana", isOnline: true, tags: ["admin", "ops"])
    var best: Contact? = nil
    var contacts: [Contact] = [
        Contact(name: "Ben", handle: "ben", note: "on leave"),
        Contact(name: "Chloé", handle: "chloe", isOnline: true),
    ]
    var team: Team? = nil
    var words: [String] = ["one", "two"]
    var subtitle: String? = nil

    static let templateFields = TemplateFields<SamplePage>(
        .text("title", \.title),
        .number("count", \.count),
        .flag("isEmpty", \.isEmpty),
        .markup("fragment", \.fragment),
        .object("owner", \.owner),
        .object("best", \.best),
        .list("contacts", \.contacts),
        .object("team", \.team),
        .list("words", \.words),
        .text("subtitle", \.subtitle)
    )
}
