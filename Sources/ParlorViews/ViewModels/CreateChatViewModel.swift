import ParlorTemplates

/// The new-chat form: a handle to type, suggestions as one types, and what went wrong.
public struct CreateChatViewModel: Renderable, Hashable {
    public static let templateName = "partials/create-chat"

    public let actionURL: String
    public let csrfToken: String
    /// What the person typed, put back after an error.
    public let handle: String
    public let isSending: Bool
    /// "No one is called @zed." ; nil when there is nothing to say.
    public let errorMessage: String?
    /// Set when the chat already exists: the error links to it.
    public let existingChatURL: String?
    /// Where the page script fetches suggestions from as the person types.
    public let suggestionsURL: String
    public let suggestions: ContactSuggestionsViewModel

    public init(
        actionURL: String, csrfToken: String, handle: String, isSending: Bool, errorMessage: String?,
        existingChatURL: String?, suggestionsURL: String, suggestions: ContactSuggestionsViewModel
    ) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.handle = handle
        self.isSending = isSending
        self.errorMessage = errorMessage
        self.existingChatURL = existingChatURL
        self.suggestionsURL = suggestionsURL
        self.suggestions = suggestions
    }

    public static let templateFields = TemplateFields<CreateChatViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("handle", \.handle),
        .flag("isSending", \.isSending),
        .text("errorMessage", \.errorMessage),
        .text("existingChatURL", \.existingChatURL),
        .text("suggestionsURL", \.suggestionsURL),
        .object("suggestions", \.suggestions)
    )
}

/// People whose handle or name matches what was typed; a rendered fragment swapped in as one types.
public struct ContactSuggestionsViewModel: Renderable, Hashable {
    public static let templateName = "partials/contact-suggestions"

    public let domID: String
    public let query: String
    public let items: [ContactSuggestionViewModel]
    /// Whether to say nothing matched (only once something was typed).
    public let showsNoMatch: Bool
    /// "No one matches “zed”."
    public let noMatchText: String

    public init(domID: String, query: String, items: [ContactSuggestionViewModel], showsNoMatch: Bool, noMatchText: String) {
        self.domID = domID
        self.query = query
        self.items = items
        self.showsNoMatch = showsNoMatch
        self.noMatchText = noMatchText
    }

    public static let templateFields = TemplateFields<ContactSuggestionsViewModel>(
        .text("domID", \.domID),
        .text("query", \.query),
        .list("items", \.items),
        .flag("showsNoMatch", \.showsNoMatch),
        .text("noMatchText", \.noMatchText)
    )
}

/// One suggested person.
public struct ContactSuggestionViewModel: TemplateContext, Hashable {
    public let handle: String
    public let displayName: String
    public let avatar: AvatarViewModel
    /// Their existing chat with the viewer, if there is one.
    public let chatURL: String?

    public init(handle: String, displayName: String, avatar: AvatarViewModel, chatURL: String?) {
        self.handle = handle
        self.displayName = displayName
        self.avatar = avatar
        self.chatURL = chatURL
    }

    public static let templateFields = TemplateFields<ContactSuggestionViewModel>(
        .text("handle", \.handle),
        .text("displayName", \.displayName),
        .object("avatar", \.avatar),
        .text("chatURL", \.chatURL)
    )
}
