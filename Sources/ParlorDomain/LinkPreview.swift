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
    /// The sender removed the card: nothing is shown, and nothing is fetched again.
    public let isRemoved: Bool

    public init(url: String, title: String, description: String? = nil, siteName: String? = nil, isRemoved: Bool = false) {
        self.url = url
        self.title = title
        self.description = description
        self.siteName = siteName
        self.isRemoved = isRemoved
    }

    /// What a removed card keeps: that it was removed.
    public static let removed = LinkPreview(url: "", title: "", isRemoved: true)

    /// The most bytes of a link Parlor fetches a card for.
    public static let urlLimit = 2_000
}

/// A card read from a linked page, for a message (from the previewer, off the request).
public struct PreviewResult: Hashable, Sendable {
    public let messageID: MessageID
    public let preview: LinkPreview

    public init(messageID: MessageID, preview: LinkPreview) {
        self.messageID = messageID
        self.preview = preview
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
