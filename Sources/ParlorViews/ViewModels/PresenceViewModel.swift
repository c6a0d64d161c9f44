import ParlorTemplates

/// A person's presence, as a live update carries it: the page's script gives every dot of theirs this state and
/// its words ("Ben Okafor is away").
public struct PresenceViewModel: Renderable, Hashable {
    public static let templateName = "partials/presence"

    public let userID: String
    /// "active", "away" or "offline": the dot's look.
    public let state: String
    /// What the dot says to a screen reader and as a tooltip.
    public let label: String

    public init(userID: String, state: String, label: String) {
        self.userID = userID
        self.state = state
        self.label = label
    }

    public static let templateFields = TemplateFields<PresenceViewModel>(
        .text("userID", \.userID),
        .text("state", \.state),
        .text("label", \.label)
    )
}
