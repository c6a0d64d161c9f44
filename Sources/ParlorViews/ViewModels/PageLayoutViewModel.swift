import ParlorTemplates

/// What every full page shares: the document title, assets, the signed-in person and the CSRF token.
public struct PageLayoutViewModel: TemplateContext, Hashable {
    /// The document title, with the unread total in front when there is any ("(3) Parlor").
    public let title: String
    /// Prefix of every URL, for Parlor served under a path ("" or "/parlor").
    public let basePath: String
    public let stylesheetURL: String
    public let scriptURL: String
    /// Favicon; a variant with a dot when something is unread.
    public let faviconURL: String
    /// The token every form posts back; empty on pages without a session.
    public let csrfToken: String
    /// The signed-in person, or nil on the sign-in and sign-up pages.
    public let signedInUser: SignedInUserViewModel?
    /// The URL the page's live-update stream connects to; nil for pages without live updates.
    public let eventsURL: String?
    /// What the header's search field shows: the query on the results page, empty elsewhere.
    public let searchQuery: String

    public init(
        title: String,
        basePath: String,
        stylesheetURL: String,
        scriptURL: String,
        faviconURL: String,
        csrfToken: String,
        signedInUser: SignedInUserViewModel?,
        eventsURL: String?,
        searchQuery: String = ""
    ) {
        self.searchQuery = searchQuery
        self.title = title
        self.basePath = basePath
        self.stylesheetURL = stylesheetURL
        self.scriptURL = scriptURL
        self.faviconURL = faviconURL
        self.csrfToken = csrfToken
        self.signedInUser = signedInUser
        self.eventsURL = eventsURL
    }

    public static let templateFields = TemplateFields<PageLayoutViewModel>(
        .text("title", \.title),
        .text("basePath", \.basePath),
        .text("stylesheetURL", \.stylesheetURL),
        .text("scriptURL", \.scriptURL),
        .text("faviconURL", \.faviconURL),
        .text("csrfToken", \.csrfToken),
        .object("signedInUser", \.signedInUser),
        .text("eventsURL", \.eventsURL),
        .text("searchQuery", \.searchQuery)
    )
}

/// The person shown in the header, with the links that belong to them.
public struct SignedInUserViewModel: TemplateContext, Hashable {
    public let displayName: String
    public let handle: String
    public let avatar: AvatarViewModel
    public let chatsURL: String
    public let settingsURL: String
    public let signOutURL: String
    /// Where the header's search field goes.
    public let searchURL: String

    public init(
        displayName: String, handle: String, avatar: AvatarViewModel, chatsURL: String, settingsURL: String, signOutURL: String, searchURL: String
    ) {
        self.searchURL = searchURL
        self.displayName = displayName
        self.handle = handle
        self.avatar = avatar
        self.chatsURL = chatsURL
        self.settingsURL = settingsURL
        self.signOutURL = signOutURL
    }

    public static let templateFields = TemplateFields<SignedInUserViewModel>(
        .text("displayName", \.displayName),
        .text("handle", \.handle),
        .object("avatar", \.avatar),
        .text("chatsURL", \.chatsURL),
        .text("settingsURL", \.settingsURL),
        .text("signOutURL", \.signOutURL),
        .text("searchURL", \.searchURL)
    )
}
