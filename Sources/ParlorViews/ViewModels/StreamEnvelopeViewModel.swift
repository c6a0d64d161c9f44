import ParlorTemplates

/// One live change for a page, as DESIGN.md's envelope: what to do (`replace`, `append`, `prepend`,
/// `remove`, `toast`, `badge`, `refresh`), to which element, with which rendered fragment.
/// Appending or prepending an element whose id the page already has replaces it in place, so a
/// message delivered twice never shows twice.
public struct StreamEnvelopeViewModel: Renderable, Hashable {
    public static let templateName = "partials/stream"

    public let action: String
    /// The element id the action applies to.
    public let target: String
    /// A fragment Parlor rendered from a template; empty for `remove` and `refresh`.
    public let html: String

    public init(action: String, target: String, html: String) {
        self.action = action
        self.target = target
        self.html = html
    }

    public static let templateFields = TemplateFields<StreamEnvelopeViewModel>(
        .text("action", \.action),
        .text("target", \.target),
        .markup("html", \.html)
    )
}
