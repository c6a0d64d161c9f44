// libFuzzer entry: a template a designer hands Parlor, parsed, checked against its view model and, when
// it compiles, rendered with hostile values.
import ByteOutput
import ParlorTemplates

struct Person: TemplateContext {
    let name: String
    let tags: [String]

    static let templateFields = TemplateFields<Person>(.text("name", \.name), .list("tags", \.tags))
}

struct FuzzPage: Renderable {
    static let templateName = "page"

    var title = "<script>alert(1)</script>"
    var count = 3
    var isEmpty = false
    var owner = Person(name: "Ana \"&\" <b>", tags: ["a", "<i>"])
    var best: Person? = nil
    var people = [Person(name: "Ben", tags: []), Person(name: "Chloé", tags: ["x"])]
    var words = ["one", "two"]
    var subtitle: String? = nil

    static let templateFields = TemplateFields<FuzzPage>(
        .text("title", \.title),
        .number("count", \.count),
        .flag("isEmpty", \.isEmpty),
        .object("owner", \.owner),
        .object("best", \.best),
        .list("people", \.people),
        .list("words", \.words),
        .text("subtitle", \.subtitle)
    )
}

private let person = TemplateSource(name: "person", text: "<li>{{name}}{{#tags}} {{.}}{{/tags}}</li>")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let sources = [TemplateSource(name: "page", text: text), person]
    guard let set = try? TemplateSet(sources: sources, viewModels: [FuzzPage.self]) else { return 0 }
    let page = set.render(FuzzPage(), capacity: 256)
    // Every value is escaped: no template can make a view model's text into markup.
    precondition(!page.string.contains("<script>"))
    return 0
}
