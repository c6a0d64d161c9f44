import ParlorTemplates

/// Choosing a reaction to one message, for pages without the script: one button per quick pick, a field for
/// any other (an emoji or a few words), and who gave which so far.
public struct ReactPageViewModel: Renderable, Hashable {
    public static let templateName = "react"

    public let layout: PageLayoutViewModel
    /// "React to Ana Lima's message".
    public let heading: String
    /// The start of the message.
    public let excerpt: String
    public let chatURL: String
    public let actionURL: String
    public let csrfToken: String
    public let quickPicks: [ReactionItemViewModel]
    /// What was typed, kept when it was refused.
    public let typed: String
    public let errorMessage: String?
    /// Who gave which reaction, every name.
    public let given: [GivenReactionViewModel]
    public let hasGiven: Bool
    /// The field's `maxlength`, "16".
    public let maximumLength: String
    /// The field's `maxlength`, in the browser's units ("64").
    public let typedLimit: String

    public init(
        layout: PageLayoutViewModel, heading: String, excerpt: String, chatURL: String, actionURL: String, csrfToken: String,
        quickPicks: [ReactionItemViewModel], typed: String, errorMessage: String?, given: [GivenReactionViewModel], maximumLength: Int,
        typedLimit: Int
    ) {
        self.layout = layout
        self.heading = heading
        self.excerpt = excerpt
        self.chatURL = chatURL
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.quickPicks = quickPicks
        self.typed = typed
        self.errorMessage = errorMessage
        self.given = given
        self.hasGiven = !given.isEmpty
        self.maximumLength = String(maximumLength)
        self.typedLimit = String(typedLimit)
    }

    public static let templateFields = TemplateFields<ReactPageViewModel>(
        .object("layout", \.layout),
        .text("heading", \.heading),
        .text("excerpt", \.excerpt),
        .text("chatURL", \.chatURL),
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .list("quickPicks", \.quickPicks),
        .text("typed", \.typed),
        .text("errorMessage", \.errorMessage),
        .list("given", \.given),
        .flag("hasGiven", \.hasGiven),
        .text("maximumLength", \.maximumLength),
        .text("typedLimit", \.typedLimit)
    )
}

/// One reaction and everyone who gave it.
public struct GivenReactionViewModel: TemplateContext, Hashable {
    public let text: String
    /// "You, Ana Lima and Ben Okafor".
    public let names: String

    public init(text: String, names: String) {
        self.text = text
        self.names = names
    }

    public static let templateFields = TemplateFields<GivenReactionViewModel>(
        .text("text", \.text),
        .text("names", \.names)
    )
}
