import ParlorTemplates

/// The members an `@` being typed in the composer may name: a list box the page script shows under the text
/// and moves through with the keyboard.
public struct MentionSuggestionsViewModel: Renderable, Hashable {
    public static let templateName = "partials/mention-suggestions"

    public let items: [MentionSuggestionViewModel]
    public let isEmpty: Bool

    public init(items: [MentionSuggestionViewModel]) {
        self.items = items
        self.isEmpty = items.isEmpty
    }

    public static let templateFields = TemplateFields<MentionSuggestionsViewModel>(
        .list("items", \.items),
        .flag("isEmpty", \.isEmpty)
    )
}

/// One person (or everyone) to name.
public struct MentionSuggestionViewModel: TemplateContext, Hashable {
    /// What is inserted after the "@" ("ana", "everyone").
    public let handle: String
    /// "Ana Lima", or "Everyone in the room".
    public let name: String
    public let optionID: String

    public init(handle: String, name: String, optionID: String) {
        self.handle = handle
        self.name = name
        self.optionID = optionID
    }

    public static let templateFields = TemplateFields<MentionSuggestionViewModel>(
        .text("handle", \.handle),
        .text("name", \.name),
        .text("optionID", \.optionID)
    )
}
