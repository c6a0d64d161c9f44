import ParlorTemplates
import SnapshotTesting

extension Snapshotting where Value == String, Format == String {
    /// HTML compared as normalised, indented text (one element per line, attributes sorted), stored as `.html`.
    public static var html: Snapshotting<String, String> {
        var strategy = Snapshotting<String, String>.lines.pullback { (html: String) in HTMLNormalizer.normalize(html) }
        strategy.pathExtension = "html"
        return strategy
    }
}

extension Snapshotting where Value: Renderable, Format == String {
    /// A view model rendered through its template with `templates`, compared as normalised HTML.
    public static func html(_ templates: TemplateSet) -> Snapshotting<Value, String> {
        Snapshotting<String, String>.html.pullback { (viewModel: Value) in templates.render(viewModel).string }
    }
}
