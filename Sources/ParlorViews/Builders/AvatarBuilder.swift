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
