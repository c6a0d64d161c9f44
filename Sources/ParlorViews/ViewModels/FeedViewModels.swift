import ParlorTemplates

/// `/rooms/{id}/feeds`: the feeds a chat follows, the form that adds one.
public struct FeedsPageViewModel: Renderable, Hashable {
    public static let templateName = "feeds"

    public let layout: PageLayoutViewModel
    /// "Feeds of the chat with Ana".
    public let heading: String
    public let chatURL: String
    public let form: SubscribeFeedViewModel
    public let list: FeedListViewModel

    public init(layout: PageLayoutViewModel, heading: String, chatURL: String, form: SubscribeFeedViewModel, list: FeedListViewModel) {
        self.layout = layout
        self.heading = heading
        self.chatURL = chatURL
        self.form = form
        self.list = list
    }

    public static let templateFields = TemplateFields<FeedsPageViewModel>(
        .object("layout", \.layout),
        .text("heading", \.heading),
        .text("chatURL", \.chatURL),
        .object("form", \.form),
        .object("list", \.list)
    )
}

/// The address field: what was pasted, put back with the reason when it was refused.
public struct SubscribeFeedViewModel: TemplateContext, Hashable {
    public let actionURL: String
    public let csrfToken: String
    public let url: String
    public let errorMessage: String?

    public init(actionURL: String, csrfToken: String, url: String, errorMessage: String?) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.url = url
        self.errorMessage = errorMessage
    }

    public static let templateFields = TemplateFields<SubscribeFeedViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("url", \.url),
        .text("errorMessage", \.errorMessage)
    )
}

/// The list of a chat's feeds, in one of the seed's states: loaded (rows), empty, or an error reading it.
/// Live updates replace it whole (a chat follows at most a few feeds).
public struct FeedListViewModel: Renderable, Hashable {
    public static let templateName = "partials/feed-list"

    public let domID: String
    public let items: [FeedItemViewModel]
    /// "No feeds yet…": shown when the chat follows none.
    public let emptyText: String?
    /// The list could not be read; rows are not shown.
    public let errorMessage: String?

    public init(domID: String, items: [FeedItemViewModel], emptyText: String?, errorMessage: String?) {
        self.domID = domID
        self.items = items
        self.emptyText = emptyText
        self.errorMessage = errorMessage
    }

    public static let templateFields = TemplateFields<FeedListViewModel>(
        .text("domID", \.domID),
        .list("items", \.items),
        .text("emptyText", \.emptyText),
        .text("errorMessage", \.errorMessage)
    )
}

/// One subscription: its title, address and state line, with its actions. The actions are buttons of the
/// page's one action form (which carries the session's token), so a row pushed live needs no token.
public struct FeedItemViewModel: TemplateContext, Hashable {
    public let domID: String
    /// The feed's title, or its address until it loads.
    public let title: String
    public let url: String
    /// "Loading…", "Loaded · 3 new · checked 14:05", "Could not load: the server answered 404 · next try 15:05".
    public let stateLine: String
    /// A CSS modifier: "feed-loading", "feed-loaded", "feed-failed", "feed-paused".
    public let stateClass: String
    public let isLoading: Bool
    public let isFailed: Bool
    /// Set when failed or paused.
    public let retryURL: String?
    public let unsubscribeURL: String
    /// The form the row's buttons submit ("feed-actions").
    public let actionForm: String

    public init(
        domID: String, title: String, url: String, stateLine: String, stateClass: String, isLoading: Bool, isFailed: Bool,
        retryURL: String?, unsubscribeURL: String, actionForm: String
    ) {
        self.domID = domID
        self.title = title
        self.url = url
        self.stateLine = stateLine
        self.stateClass = stateClass
        self.isLoading = isLoading
        self.isFailed = isFailed
        self.retryURL = retryURL
        self.unsubscribeURL = unsubscribeURL
        self.actionForm = actionForm
    }

    public static let templateFields = TemplateFields<FeedItemViewModel>(
        .text("domID", \.domID),
        .text("title", \.title),
        .text("url", \.url),
        .text("stateLine", \.stateLine),
        .text("stateClass", \.stateClass),
        .flag("isLoading", \.isLoading),
        .flag("isFailed", \.isFailed),
        .text("retryURL", \.retryURL),
        .text("unsubscribeURL", \.unsubscribeURL),
        .text("actionForm", \.actionForm)
    )
}
