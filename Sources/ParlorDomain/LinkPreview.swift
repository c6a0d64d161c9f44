import Foundation

/// The card under a message whose text holds a link: what the linked page says of itself. Kept with the message;
/// gone when its text changes (the new text's link is read again) or the message is deleted. The sender may remove it,
/// and then no card is made for that message again.
public struct LinkPreview: Hashable, Sendable {
    /// The link as the message holds it (http or https).
    public let url: String
    public let title: String
    public let description: String?
    public let siteName: String?
    /// The page's picture, made small by the image service and seen by the chat's members only.
    public let image: PreviewImage?
    /// The sender removed the card: nothing is shown, and nothing is fetched again.
    public let isRemoved: Bool

    public init(
        url: String, title: String, description: String? = nil, siteName: String? = nil, image: PreviewImage? = nil, isRemoved: Bool = false
    ) {
        self.url = url
        self.title = title
        self.description = description
        self.siteName = siteName
        self.image = image
        self.isRemoved = isRemoved
    }

    /// The same card with `image`.
    public func with(image: PreviewImage?) -> LinkPreview {
        LinkPreview(url: url, title: title, description: description, siteName: siteName, image: image, isRemoved: isRemoved)
    }

    /// What a removed card keeps: that it was removed.
    public static let removed = LinkPreview(url: "", title: "", isRemoved: true)

    /// The most bytes of a link Parlor fetches a card for.
    public static let urlLimit = 2_000
}

/// A card's picture: its image (purpose ``ImagePurpose/linkPreview``) and the size of its thumbnail, written into
/// `<img width height>` so nothing moves when it loads.
public struct PreviewImage: Hashable, Sendable {
    public let id: ImageID
    public let width: Int
    public let height: Int

    public init(id: ImageID, width: Int, height: Int) {
        self.id = id
        self.width = width
        self.height = height
    }
}

/// A card read from a linked page, for a message (from the previewer, off the request).
public struct PreviewResult: Hashable, Sendable {
    public let messageID: MessageID
    /// The card; its ``LinkPreview/image`` is the store's to set.
    public let preview: LinkPreview
    /// The versions of the page's picture, written to the media folder (empty: none); the store records them
    /// as an image of the message's sender with the card, or not at all.
    public let image: [StoredImageVersion]

    public init(messageID: MessageID, preview: LinkPreview, image: [StoredImageVersion] = []) {
        self.messageID = messageID
        self.preview = preview
        self.image = image
    }

    /// The card's picture once recorded as `id`; nil without a thumbnail.
    public func picture(_ id: ImageID) -> PreviewImage? {
        image.first { $0.role == .thumbnail }.map { PreviewImage(id: id, width: $0.width, height: $0.height) }
    }
}

/// The sender asks for a message's card to go.
public struct PreviewRemoval: Hashable, Sendable {
    public let messageID: MessageID
    public let requesterID: UserID

    public init(messageID: MessageID, requesterID: UserID) {
        self.messageID = messageID
        self.requesterID = requesterID
    }
}
