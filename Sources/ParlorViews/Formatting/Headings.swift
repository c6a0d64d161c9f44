import ParlorDomain

/// What a chat is called on screens.
public enum Headings {
    /// The room's name, or the other person's name in a direct chat ("Ben, Chloé, Dmitri and 2 others" when
    /// there are several).
    public static func title(_ heading: ChatHeading) -> String {
        let more = heading.kind == .direct ? heading.memberCount - 1 - Chat.othersShown : 0
        let name = heading.name ?? heading.contact?.displayName ?? "Direct chat"
        return more > 0 ? "\(name) and \(more) other\(more == 1 ? "" : "s")" : name
    }

    /// "@ana" for a direct chat of two, "12 members" for a room.
    public static func subtitle(_ heading: ChatHeading) -> String {
        if let contact = heading.contact { return "@" + contact.handle }
        return CountLabels.members(heading.memberCount)
    }
}
