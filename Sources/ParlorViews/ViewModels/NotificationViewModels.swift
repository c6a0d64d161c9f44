import ParlorTemplates

/// An in-app notification for a message in a chat that is not open on this page.
public struct ToastViewModel: Renderable, Hashable {
    public static let templateName = "partials/toast"

    public let domID: String
    /// The sender ("Ana Lima").
    public let title: String
    /// The message, on one line, cut on a character boundary.
    public let preview: String
    /// The chat it came from.
    public let url: String
    public let avatar: AvatarViewModel

    public init(domID: String, title: String, preview: String, url: String, avatar: AvatarViewModel) {
        self.domID = domID
        self.title = title
        self.preview = preview
        self.url = url
        self.avatar = avatar
    }

    public static let templateFields = TemplateFields<ToastViewModel>(
        .text("domID", \.domID),
        .text("title", \.title),
        .text("preview", \.preview),
        .text("url", \.url),
        .object("avatar", \.avatar)
    )
}

/// The unread total, for the page title ("(3) Parlor") and the favicon.
public struct UnreadBadgeViewModel: Renderable, Hashable {
    public static let templateName = "partials/unread-badge"

    public let pageTitle: String
    /// "3", "99+"; nil when nothing is unread.
    public let count: String?
    public let faviconURL: String

    public init(pageTitle: String, count: String?, faviconURL: String) {
        self.pageTitle = pageTitle
        self.count = count
        self.faviconURL = faviconURL
    }

    public static let templateFields = TemplateFields<UnreadBadgeViewModel>(
        .text("pageTitle", \.pageTitle),
        .text("count", \.count),
        .text("faviconURL", \.faviconURL)
    )
}
