import ParlorTemplates

/// A person's picture, or their initials on a colour derived from their id when there is no picture.
public struct AvatarViewModel: TemplateContext, Hashable {
    /// The picture's URL; nil shows the initials.
    public let imageURL: String?
    /// One or two letters ("AL").
    public let initials: String
    /// A CSS class picking one of the palette colours ("avatar-hue-3"); stable for a given user.
    public let colorClass: String
    /// Text for screen readers ("Ana Lima").
    public let label: String

    public init(imageURL: String?, initials: String, colorClass: String, label: String) {
        self.imageURL = imageURL
        self.initials = initials
        self.colorClass = colorClass
        self.label = label
    }

    public static let templateFields = TemplateFields<AvatarViewModel>(
        .text("imageURL", \.imageURL),
        .text("initials", \.initials),
        .text("colorClass", \.colorClass),
        .text("label", \.label)
    )
}
