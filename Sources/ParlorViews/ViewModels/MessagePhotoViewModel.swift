import ParlorTemplates

/// The photo in a message cell, in one of three states. Its `width` and `height` are the thumbnail's from
/// the start (the upload's header gives them before any pixel is decoded), so the cell keeps its size
/// when the picture replaces the placeholder.
public struct MessagePhotoViewModel: TemplateContext, Hashable {
    public let width: Int
    public let height: Int
    /// "Photo from Ana".
    public let altText: String
    /// The image view (`/images/{id}`): a page without the script, a dialog with it.
    public let viewURL: String
    /// Set once it is ready.
    public let thumbnailURL: String?
    /// Set while it is being processed: a neutral picture of the same size.
    public let placeholderURL: String?
    /// "Processing photo…", or why it failed; nil once shown.
    public let status: String?
    public let isFailed: Bool

    public init(width: Int, height: Int, altText: String, viewURL: String, thumbnailURL: String?, placeholderURL: String?, status: String?, isFailed: Bool) {
        self.width = width
        self.height = height
        self.altText = altText
        self.viewURL = viewURL
        self.thumbnailURL = thumbnailURL
        self.placeholderURL = placeholderURL
        self.status = status
        self.isFailed = isFailed
    }

    public static let templateFields = TemplateFields<MessagePhotoViewModel>(
        .number("width", \.width),
        .number("height", \.height),
        .text("altText", \.altText),
        .text("viewURL", \.viewURL),
        .text("thumbnailURL", \.thumbnailURL),
        .text("placeholderURL", \.placeholderURL),
        .text("status", \.status),
        .flag("isFailed", \.isFailed)
    )
}
