import ByteOutput
import ParlorTemplates

/// A named view model in one state, shared by the snapshot tests and the gallery.
public struct Fixture: Sendable {
    /// "chat-list/loading": the screen or cell, then the state.
    public let name: String
    /// The view model, rendered through its own template.
    public let viewModel: any Renderable
    /// Whether it is a whole page (a document) rather than a fragment.
    public let isPage: Bool

    /// `Fixture("chat-list/empty", list.loaded([], current: nil))`; `isPage` for a whole document.
    public init(_ name: String, _ viewModel: any Renderable, isPage: Bool = false) {
        self.name = name
        self.viewModel = viewModel
        self.isPage = isPage
    }

    /// The view model's type name ("ChatListViewModel").
    public var viewModelName: String { String(describing: type(of: viewModel)) }

    /// The template the view model renders through.
    public var templateName: String { type(of: viewModel).templateName }

    /// Renders the fixture with `templates`.
    public func render(with templates: TemplateSet) -> OutputBuffer {
        func open<ViewModel: Renderable>(_ viewModel: ViewModel) -> OutputBuffer { templates.render(viewModel) }
        return open(viewModel)
    }
}
