import ByteOutput
import Mustache
import ParlorTemplates
import Testing

/// Renders with Parlor's engine and with swift-mustache (by reflection) from the same sources.
struct TwoEngines {
    let sources: [TemplateSource]

    init(page: String, partials: [String: String] = [:]) {
        sources = [TemplateSource(name: SamplePage.templateName, text: page)]
            + partials.sorted { $0.key < $1.key }.map { TemplateSource(name: $0.key, text: $0.value) }
    }

    func parlor(_ page: SamplePage) throws -> String {
        let set = try TemplateSet(sources: sources, viewModels: [SamplePage.self])
        return set.render(page).string
    }

    func oracle(_ page: SamplePage) throws -> String {
        var library = MustacheLibrary()
        for source in sources {
            try library.register(source.text, named: source.name)
        }
        return try #require(library.render(page, withTemplate: SamplePage.templateName))
    }
}
