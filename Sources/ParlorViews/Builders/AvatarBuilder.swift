import ParlorDomain

/// A person's avatar: their picture when they have one, else initials on a colour that depends on their id only.
public enum AvatarBuilder {
    /// `avatar-hue-0` ... made once: every list item and cell names one.
    static let colorClasses = (0..<Initials.paletteSize).map { "avatar-hue-\($0)" }

    public static func avatar(for user: User, paths: Paths) -> AvatarViewModel {
        AvatarViewModel(
            imageURL: user.avatar.map(paths.avatar),
            initials: Initials.of(displayName: user.displayName, handle: user.handle),
            colorClass: colorClasses[Initials.paletteIndex(for: user.id.rawValue)],
            label: user.displayName
        )
    }

    /// A room's face: the initials of its name on a colour that depends on its id only.
    public static func avatar(forRoom chat: ChatID, name: String) -> AvatarViewModel {
        AvatarViewModel(
            imageURL: nil,
            initials: Initials.of(displayName: name, handle: name),
            colorClass: colorClasses[Initials.paletteIndex(for: chat.rawValue)],
            label: name
        )
    }

    /// How a chat shows on screens: a room by its name, a direct chat by its other person.
    public static func avatar(for chat: ChatID, _ heading: ChatHeading, paths: Paths) -> AvatarViewModel {
        if let contact = heading.contact { return avatar(for: contact, paths: paths) }
        return avatar(forRoom: chat, name: Headings.title(heading))
    }
}

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
