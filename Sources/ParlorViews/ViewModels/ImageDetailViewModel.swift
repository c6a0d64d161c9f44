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

    public init(domID: String, isLoading: Bool, imageURL: String?, altText: String, failureMessage: String?, retryURL: String?, backURL: String) {
        self.domID = domID
        self.isLoading = isLoading
        self.imageURL = imageURL
        self.altText = altText
        self.failureMessage = failureMessage
        self.retryURL = retryURL
        self.backURL = backURL
    }

    public static let templateFields = TemplateFields<ImageDetailViewModel>(
        .text("domID", \.domID),
        .flag("isLoading", \.isLoading),
        .text("imageURL", \.imageURL),
        .text("altText", \.altText),
        .text("failureMessage", \.failureMessage),
        .text("retryURL", \.retryURL),
        .text("backURL", \.backURL)
    )
}
