import ParlorTemplates

/// Who is typing in a chat, under its messages: "Ana is typing…", empty when nobody is. Its own element inside a
/// polite live region, so a change is announced once (a name that stays is not announced again).
public struct TypingViewModel: Renderable, Hashable {
    public static let templateName = "partials/typing"

    public let domID: String
    /// "Ana is typing…", "Ana and Ben are typing…", "Several people are typing…"; nil when nobody is.
    public let text: String?

    public init(domID: String, text: String?) {
        self.domID = domID
        self.text = text
    }

    public static let templateFields = TemplateFields<TypingViewModel>(
        .text("domID", \.domID),
        .text("text", \.text)
    )
}
