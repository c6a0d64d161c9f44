import ParlorTemplates

/// Settings' notifications: the browsers told by Web Push (each with "Remove"), a test notification, what a
/// notification may say, whether others see the person as around, and the server's public key for operators.
public struct NotificationSettingsViewModel: TemplateContext, Hashable {
    public let csrfToken: String
    /// Where the script subscribes this browser (and removes it by its endpoint).
    public let subscribeURL: String
    public let unsubscribeURL: String
    /// The server's VAPID public key (base64url), which browsers subscribe with.
    public let serverKey: String
    public let browsers: [PushBrowserViewModel]
    /// "No browser gets notifications yet." when there is none.
    public let emptyMessage: String?
    public let testURL: String?
    public let preferencesURL: String
    public let isPrivate: Bool
    public let appearsOffline: Bool
    /// "Notification settings saved.", "A test notification was sent to 2 browsers."…
    public let savedMessage: String?

    public init(
        csrfToken: String, subscribeURL: String, unsubscribeURL: String, serverKey: String, browsers: [PushBrowserViewModel], emptyMessage: String?,
        testURL: String?, preferencesURL: String, isPrivate: Bool, appearsOffline: Bool, savedMessage: String?
    ) {
        self.csrfToken = csrfToken
        self.subscribeURL = subscribeURL
        self.unsubscribeURL = unsubscribeURL
        self.serverKey = serverKey
        self.browsers = browsers
        self.emptyMessage = emptyMessage
        self.testURL = testURL
        self.preferencesURL = preferencesURL
        self.isPrivate = isPrivate
        self.appearsOffline = appearsOffline
        self.savedMessage = savedMessage
    }

    public static let templateFields = TemplateFields<NotificationSettingsViewModel>(
        .text("csrfToken", \.csrfToken),
        .text("subscribeURL", \.subscribeURL),
        .text("unsubscribeURL", \.unsubscribeURL),
        .text("serverKey", \.serverKey),
        .list("browsers", \.browsers),
        .text("emptyMessage", \.emptyMessage),
        .text("testURL", \.testURL),
        .text("preferencesURL", \.preferencesURL),
        .flag("isPrivate", \.isPrivate),
        .flag("appearsOffline", \.appearsOffline),
        .text("savedMessage", \.savedMessage)
    )
}

/// One browser that gets notifications: "Chrome on Linux · added 14 Nov".
public struct PushBrowserViewModel: TemplateContext, Hashable {
    public let id: String
    /// What "Remove" posts.
    public let subscriptionID: String
    public let label: String
    public let added: String
    public let removeURL: String
    public let csrfToken: String

    public init(id: String, subscriptionID: String, label: String, added: String, removeURL: String, csrfToken: String) {
        self.id = id
        self.subscriptionID = subscriptionID
        self.label = label
        self.added = added
        self.removeURL = removeURL
        self.csrfToken = csrfToken
    }

    public static let templateFields = TemplateFields<PushBrowserViewModel>(
        .text("id", \.id),
        .text("subscriptionID", \.subscriptionID),
        .text("label", \.label),
        .text("added", \.added),
        .text("removeURL", \.removeURL),
        .text("csrfToken", \.csrfToken)
    )
}
