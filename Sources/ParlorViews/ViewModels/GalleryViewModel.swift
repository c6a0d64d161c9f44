import ParlorTemplates

/// `/gallery`: every view-model fixture rendered, so a designer sees every state without clicking through.
public struct GalleryViewModel: Renderable, Hashable {
    public static let templateName = "gallery"

    public let layout: PageLayoutViewModel
    public let entries: [GalleryEntryViewModel]

    public init(layout: PageLayoutViewModel, entries: [GalleryEntryViewModel]) {
        self.layout = layout
        self.entries = entries
    }

    public static let templateFields = TemplateFields<GalleryViewModel>(
        .object("layout", \.layout),
        .list("entries", \.entries)
    )
}

/// One fixture: its name and its rendered HTML, shown in a sandboxed frame (the HTML is escaped into `srcdoc`).
public struct GalleryEntryViewModel: TemplateContext, Hashable {
    public let name: String
    public let anchor: String
    public let viewModelName: String
    public let html: String
    /// Whether the fixture is a full page (taller frame) or a fragment.
    public let isPage: Bool

    public init(name: String, anchor: String, viewModelName: String, html: String, isPage: Bool) {
        self.name = name
        self.anchor = anchor
        self.viewModelName = viewModelName
        self.html = html
        self.isPage = isPage
    }

    public static let templateFields = TemplateFields<GalleryEntryViewModel>(
        .text("name", \.name),
        .text("anchor", \.anchor),
        .text("viewModelName", \.viewModelName),
        .text("html", \.html),
        .flag("isPage", \.isPage)
    )
}

/// The document a gallery frame shows: the stylesheet and one rendered fixture.
public struct GalleryFrameViewModel: Renderable, Hashable {
    public static let templateName = "gallery-frame"

    public let stylesheetURL: String
    /// A fragment Parlor rendered from a fixture; trusted markup, every value in it already escaped.
    public let fragment: String

    public init(stylesheetURL: String, fragment: String) {
        self.stylesheetURL = stylesheetURL
        self.fragment = fragment
    }

    public static let templateFields = TemplateFields<GalleryFrameViewModel>(
        .text("stylesheetURL", \.stylesheetURL),
        .markup("fragment", \.fragment)
    )
}
