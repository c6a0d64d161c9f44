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
}
