import ParlorTemplates

/// `/search`: the results of what the person typed in the header's search field.
public struct SearchPageViewModel: Renderable, Hashable {
    public static let templateName = "search"

    public let layout: PageLayoutViewModel
    public let results: SearchResultsViewModel

    public init(layout: PageLayoutViewModel, results: SearchResultsViewModel) {
        self.layout = layout
        self.results = results
    }

    public static let templateFields = TemplateFields<SearchPageViewModel>(
        .object("layout", \.layout),
        .object("results", \.results)
    )
}

/// The results region: replaced as a whole while the person types (the same partial the page renders).
public struct SearchResultsViewModel: Renderable, Hashable {
    public static let templateName = "partials/search-results"

    /// "Messages with deploy", or "Search messages" before anything was typed.
    public let heading: String
    /// Why parts of the query were set aside ("before: takes a date, like before:2026-11-01").
    public let problems: [String]
    /// Newest first and best match, as links, the current one marked.
    public let orders: [SearchOrderViewModel]
    public let results: [SearchResultViewModel]
    /// The next page; nil on the last.
    public let moreURL: String?
    /// Set when nothing was found: "No messages match deploy."
    public let emptyText: String?
    /// Set when nothing was found with filters: the same words without them.
    public let withoutFiltersURL: String?
    /// Set before anything was typed: what the query language offers.
    public let hints: [String]

    public init(
        heading: String, problems: [String], orders: [SearchOrderViewModel], results: [SearchResultViewModel], moreURL: String?, emptyText: String?,
        withoutFiltersURL: String?, hints: [String]
    ) {
        self.heading = heading
        self.problems = problems
        self.orders = orders
        self.results = results
        self.moreURL = moreURL
        self.emptyText = emptyText
        self.withoutFiltersURL = withoutFiltersURL
        self.hints = hints
        hasProblems = !problems.isEmpty
        hasOrders = !orders.isEmpty
        hasResults = !results.isEmpty
        hasHints = !hints.isEmpty
    }

    /// Whether each list has something (the template wraps a list only then).
    public let hasProblems: Bool
    public let hasOrders: Bool
    public let hasResults: Bool
    public let hasHints: Bool

    public static let templateFields = TemplateFields<SearchResultsViewModel>(
        .text("heading", \.heading),
        .flag("hasProblems", \.hasProblems),
        .flag("hasOrders", \.hasOrders),
        .flag("hasResults", \.hasResults),
        .flag("hasHints", \.hasHints),
        .list("problems", \.problems),
        .list("orders", \.orders),
        .list("results", \.results),
        .text("moreURL", \.moreURL),
        .text("emptyText", \.emptyText),
        .text("withoutFiltersURL", \.withoutFiltersURL),
        .list("hints", \.hints)
    )
}

/// "Newest first" or "Best match": a link to the same search in that order.
public struct SearchOrderViewModel: TemplateContext, Hashable {
    public let label: String
    public let url: String
    public let isCurrent: Bool

    public init(label: String, url: String, isCurrent: Bool) {
        self.label = label
        self.url = url
        self.isCurrent = isCurrent
    }

    public static let templateFields = TemplateFields<SearchOrderViewModel>(
        .text("label", \.label),
        .text("url", \.url),
        .flag("isCurrent", \.isCurrent)
    )
}

/// One message found: where, who, when, and its text around the match.
public struct SearchResultViewModel: TemplateContext, Hashable {
    /// "search-result-42".
    public let domID: String
    /// The conversation at this message.
    public let url: String
    /// The room's name, or who a direct chat is with.
    public let chatName: String
    /// Who wrote it ("You" for the viewer); nil when the chat is called by their name (a direct chat of two).
    public let authorName: String?
    public let avatar: AvatarViewModel
    /// In the viewer's zone and language ("Today, 14:05", "November 12, 2:05 PM").
    public let dateLabel: String
    public let isoDate: String
    public let snippet: [SnippetRunViewModel]
    /// Set when the message has a photo: "Photo".
    public let photoLabel: String?

    public init(
        domID: String, url: String, chatName: String, authorName: String?, avatar: AvatarViewModel, dateLabel: String, isoDate: String,
        snippet: [SnippetRunViewModel], photoLabel: String?
    ) {
        self.domID = domID
        self.url = url
        self.chatName = chatName
        self.authorName = authorName
        self.avatar = avatar
        self.dateLabel = dateLabel
        self.isoDate = isoDate
        self.snippet = snippet
        self.photoLabel = photoLabel
    }

    /// The snippet as text, for tests.
    public var snippetText: String { snippet.map(\.text).joined() }

    public static let templateFields = TemplateFields<SearchResultViewModel>(
        .text("domID", \.domID),
        .text("url", \.url),
        .text("chatName", \.chatName),
        .text("authorName", \.authorName),
        .object("avatar", \.avatar),
        .text("dateLabel", \.dateLabel),
        .text("isoDate", \.isoDate),
        .list("snippet", \.snippet),
        .text("photoLabel", \.photoLabel)
    )
}

/// A run of a result's text; the template marks the matched ones.
public struct SnippetRunViewModel: TemplateContext, Hashable {
    public let text: String
    public let isMatch: Bool

    public init(text: String, isMatch: Bool) {
        self.text = text
        self.isMatch = isMatch
    }

    public static let templateFields = TemplateFields<SnippetRunViewModel>(
        .text("text", \.text),
        .flag("isMatch", \.isMatch)
    )
}
