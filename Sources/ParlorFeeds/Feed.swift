import Foundation
import ParlorDomain

/// A feed as Parlor reads it, whatever its format: what a subscription would post.
public struct Feed: Hashable, Sendable {
    public let title: String
    /// The site's page (http or https only), if the feed names one.
    public let link: String?
    /// In the feed's own order.
    public let items: [FeedItem]
    /// How long the feed asks readers to wait between checks (RSS `ttl`), in minutes, at most a week.
    public let ttl: Int?
    /// The feed's icon or logo (http or https): RSS `image/url`, Atom `icon` or `logo`, JSON Feed `icon`
    /// or `favicon`.
    public let icon: String?

    public init(title: String, link: String?, items: [FeedItem], ttl: Int? = nil, icon: String? = nil) {
        self.title = title
        self.link = link
        self.items = items
        self.ttl = ttl
        self.icon = icon
    }

    /// The items oldest first, the order they are posted in: by date when every item has one (the feed's
    /// order breaking ties), else the reverse of a feed listed newest first, as feeds are.
    public var itemsOldestFirst: [FeedItem] {
        let numbered = Array(items.enumerated())
        if items.allSatisfy({ $0.date != nil }) {
            return numbered.sorted { ($0.element.date!, $1.offset) < ($1.element.date!, $0.offset) }.map(\.element)
        }
        return items.reversed()
    }
}

/// Why a document is not a feed Parlor can read, in words for a person.
public enum FeedError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLarge(bytes: Int)
    /// XML that stops or breaks: `XMLParser` says yes to a truncated document, so its error is checked.
    case malformed(String)
    /// Well formed, but not RSS, RDF, Atom or JSON Feed.
    case notAFeed

    public var description: String {
        switch self {
        case .empty: "the answer was empty"
        case .tooLarge(let bytes): "the feed is larger than \(FeedError.size(bytes))"
        case .malformed(let why): "it is not well-formed (\(why))"
        case .notAFeed: "it is not an RSS, Atom or JSON feed"
        }
    }

    /// "2 MB", or "512 KB" under a megabyte (never "0 MB").
    public static func size(_ bytes: Int) -> String {
        bytes >= 1_000_000 ? "\(bytes / 1_000_000) MB" : "\(max(bytes, 0) / 1_000) KB"
    }
}
