import ParlorDomain

/// A person's avatar: their picture when they have one, else initials on a colour that depends on their id only.
public enum AvatarBuilder {
    public static func avatar(for user: User, paths: Paths) -> AvatarViewModel {
        AvatarViewModel(
            imageURL: user.avatar.map(paths.avatar),
            initials: Initials.of(displayName: user.displayName, handle: user.handle),
            colorClass: "avatar-hue-\(Initials.paletteIndex(for: user.id.rawValue))",
            label: user.displayName
        )
    }
}
