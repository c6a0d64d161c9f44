import Foundation

/// How both stores keep a status: four columns (its name, the items a load posted, when, and why it failed).
extension FeedStatus {
    public struct Stored: Hashable, Sendable {
        public let name: String
        public let newItems: Int
        public let at: Date?
        public let reason: String?
    }

    public var stored: Stored {
        switch self {
        case .loading: Stored(name: "loading", newItems: 0, at: nil, reason: nil)
        case .loaded(let newItems, let checkedAt): Stored(name: "loaded", newItems: newItems, at: checkedAt, reason: nil)
        case .failed(let reason, let at): Stored(name: "failed", newItems: 0, at: at, reason: reason)
        case .paused(let reason, let at): Stored(name: "paused", newItems: 0, at: at, reason: reason)
        }
    }

    /// The status those columns hold; an unknown name (a newer version wrote it) reads as loading.
    public init(stored name: String, newItems: Int, at: Date?, reason: String?) {
        let at = at ?? Date(timeIntervalSince1970: 0)
        switch name {
        case "loaded": self = .loaded(newItems: newItems, checkedAt: at)
        case "failed": self = .failed(reason: reason ?? "", at: at)
        case "paused": self = .paused(reason: reason ?? "", at: at)
        default: self = .loading
        }
    }
}
