import Foundation
import ParlorDomain

/// A feed as Parlor reads it, whatever its format: what a subscription would post.
public struct Feed: Hashable, Sendable {
    public let title: String
    /// The site's page (http or https only), if the feed names one.
    public let link: String?
    /// In the feed's own order.
    public let items: [FeedItem]

    public init(title: String, link: String?, items: [FeedItem]) {
        self.title = title
        self.link = link
        self.items = items
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
        case .empty: "the document is empty"
        case .tooLarge(let bytes): "the document is larger than \(bytes / 1_000_000) MB"
        case .malformed(let why): "the document is not well-formed: \(why)"
        case .notAFeed: "the document is not an RSS, Atom or JSON feed"
        }
    }
}
