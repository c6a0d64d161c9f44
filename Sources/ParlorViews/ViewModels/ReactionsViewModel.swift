import ParlorTemplates

/// The reactions under a message: one button per reaction with its count, pressed when the viewer gave it.
/// A press toggles it through the conversation's one reaction form (its buttons name the form, so a cell shared
/// by many viewers carries no one's token). A live update replaces the whole list.
public struct ReactionsViewModel: Renderable, Hashable {
    public static let templateName = "partials/reactions"

    /// "reactions-42".
    public let domID: String
    public let items: [ReactionItemViewModel]

    public init(domID: String, items: [ReactionItemViewModel]) {
        self.domID = domID
        self.items = items
    }

    public static let templateFields = TemplateFields<ReactionsViewModel>(
        .text("domID", \.domID),
        .list("items", \.items)
    )
}

/// One reaction and how many gave it.
public struct ReactionItemViewModel: TemplateContext, Hashable {
    /// "👍", "+1".
    public let text: String
    /// "3".
    public let count: String
    /// "You, Ana Lima and Ben Okafor reacted with 👍": the button's name for a screen reader and its tooltip.
    public let label: String
    /// The viewer gave it: the button is pressed, and a press takes it back.
    public let isMine: Bool
    /// Where the press posts.
    public let toggleURL: String

    public init(text: String, count: String, label: String, isMine: Bool, toggleURL: String) {
        self.text = text
        self.count = count
        self.label = label
        self.isMine = isMine
        self.toggleURL = toggleURL
    }

    public static let templateFields = TemplateFields<ReactionItemViewModel>(
        .text("text", \.text),
        .text("count", \.count),
        .text("label", \.label),
        .flag("isMine", \.isMine),
        .text("toggleURL", \.toggleURL)
    )
}
