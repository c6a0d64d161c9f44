import Foundation

/// One item of a feed, as the parser reads it and a subscription posts it.
public struct FeedItem: Hashable, Sendable {
    /// What makes an item the same item on the next check: its guid or id, else its link, else a hash of
    /// its title and text.
    public let key: String
    public let title: String?
    /// Absolute, http or https only: a `javascript:` or `data:` link is dropped.
    public let link: String?
    public let date: Date?
    /// Plain text: tags removed, entities decoded, white space collapsed.
    public let text: String

    public init(key: String, title: String?, link: String?, date: Date?, text: String) {
        self.key = key
        self.title = title
        self.link = link
        self.date = date
        self.text = text
    }
}

extension FeedItem {
    /// FNV-1a (64 bits) of `bytes`: a stable, short name for a long key, the same on every run.
    public static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// What a message posted from a feed shows besides its text (the item's summary): the feed as its author,
/// the item's title as a link, the item's date. Kept on the message, so it reads the same after the
/// subscription is gone.
public struct FeedPost: Hashable, Sendable {
    /// The feed's title: the author's name and initials.
    public let source: String
    public let title: String?
    public let link: String?
    public let date: Date?
    /// The feed's icon, when it has one Parlor could read: the avatar of the post.
    public let icon: ImageID?

    public init(source: String, title: String?, link: String?, date: Date?, icon: ImageID? = nil) {
        self.source = source
        self.title = title
        self.link = link
        self.date = date
        self.icon = icon
    }
}
