import ParlorTemplates

/// An image on its own: loading, shown, or failed with a reason and a retry.
public struct ImageDetailViewModel: Renderable, Hashable {
    public static let templateName = "partials/image-detail"

    public let domID: String
    public let isLoading: Bool
    /// Set once the image is there.
    public let imageURL: String?
    public let altText: String
    /// Why it could not be shown, for a person; set when it failed.
    public let failureMessage: String?
    public let retryURL: String?
    public let backURL: String
    /// The shown size, when known: the loading placeholder takes it too, so nothing moves.
    public let size: ImageSizeViewModel?
    /// While loading: a neutral picture of that size.
    public let placeholderURL: String?
    /// The photo at its own size (up to 4096 px), and the same file to save.
    public let originalURL: String?
    public let downloadURL: String?
    /// "4032 × 3024": the original's size.
    public let originalSize: String?
    /// The chat's photos just before and after this one.
    public let previousURL: String?
    public let nextURL: String?
    public let hasSteps: Bool

    public init(
        domID: String, isLoading: Bool, imageURL: String?, altText: String, failureMessage: String?, retryURL: String?, backURL: String,
        size: ImageSizeViewModel? = nil, placeholderURL: String? = nil, originalURL: String? = nil, downloadURL: String? = nil,
        originalSize: String? = nil, previousURL: String? = nil, nextURL: String? = nil
    ) {
        self.domID = domID
        self.isLoading = isLoading
        self.imageURL = imageURL
        self.altText = altText
        self.failureMessage = failureMessage
        self.retryURL = retryURL
        self.backURL = backURL
        self.size = size
        self.placeholderURL = placeholderURL
        self.originalURL = originalURL
        self.downloadURL = downloadURL
        self.originalSize = originalSize
        self.previousURL = previousURL
        self.nextURL = nextURL
        self.hasSteps = previousURL != nil || nextURL != nil
    }

    public static let templateFields = TemplateFields<ImageDetailViewModel>(
        .text("domID", \.domID),
        .flag("isLoading", \.isLoading),
        .text("imageURL", \.imageURL),
        .text("altText", \.altText),
        .text("failureMessage", \.failureMessage),
        .text("retryURL", \.retryURL),
        .text("backURL", \.backURL),
        .object("size", \.size),
        .text("placeholderURL", \.placeholderURL),
        .text("originalURL", \.originalURL),
        .text("downloadURL", \.downloadURL),
        .text("originalSize", \.originalSize),
        .text("previousURL", \.previousURL),
        .text("nextURL", \.nextURL),
        .flag("hasSteps", \.hasSteps)
    )
}

/// Width and height for `<img width height>`.
public struct ImageSizeViewModel: TemplateContext, Hashable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public static let templateFields = TemplateFields<ImageSizeViewModel>(
        .number("width", \.width),
        .number("height", \.height)
    )
}
