import Foundation

/// A feed subscription's id.
public struct FeedSubscriptionID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// A chat's subscription to a feed: what its row in the chat's feed list shows, and what the poller
/// needs for its next check.
public struct FeedSubscription: Hashable, Sendable {
    public let id: FeedSubscriptionID
    public let chatID: ChatID
    /// The member who subscribed.
    public let subscriberID: UserID
    /// The feed's address: what was pasted, or the feed a pasted page named.
    public let url: String
    /// The feed's title, once a check read it.
    public let title: String?
    public let createdAt: Date
    public let status: FeedStatus
    /// When the poller checks it next; the distant future while paused.
    public let nextCheck: Date
    /// Failed checks in a row (the third pauses the subscription).
    public let failures: Int
    /// What the last successful answer said, for a conditional GET.
    public let validators: FeedValidators
    /// The feed's icon as Parlor stored it, and the address it came from (fetched again only when the
    /// feed names another).
    public let icon: FeedIcon?

    public init(
        id: FeedSubscriptionID, chatID: ChatID, subscriberID: UserID, url: String, title: String?, createdAt: Date,
        status: FeedStatus, nextCheck: Date, failures: Int = 0, validators: FeedValidators = FeedValidators(), icon: FeedIcon? = nil
    ) {
        self.id = id
        self.chatID = chatID
        self.subscriberID = subscriberID
        self.url = url
        self.title = title
        self.createdAt = createdAt
        self.status = status
        self.nextCheck = nextCheck
        self.failures = failures
        self.validators = validators
        self.icon = icon
    }

    /// The same subscription at another address.
    public func moved(to url: String) -> FeedSubscription {
        FeedSubscription(
            id: id, chatID: chatID, subscriberID: subscriberID, url: url, title: title, createdAt: createdAt, status: status,
            nextCheck: nextCheck, failures: failures, validators: validators, icon: icon
        )
    }

    /// Whether a check has loaded it once: the first check posts only the newest item.
    public var hasLoaded: Bool { title != nil }

    /// Checks failing in a row before the poller stops trying until a person says "Retry now".
    public static let failuresBeforePause = 3
}

/// Where a subscription stands, as its row says it.
public enum FeedStatus: Hashable, Sendable {
    /// Not checked yet, or a retry asked for: "Loading…".
    case loading
    /// The last check read the feed (or heard it had not changed) and posted `newItems`.
    case loaded(newItems: Int, checkedAt: Date)
    /// The last check failed; `reason` is for a person ("the server answered 404").
    case failed(reason: String, at: Date)
    /// Failed too often in a row: no more checks until "Retry now".
    case paused(reason: String, at: Date)
}

/// A feed's icon: where it came from, and the image made of it (nil when it could not be read).
public struct FeedIcon: Hashable, Sendable {
    public let url: String
    public let image: ImageID?

    public init(url: String, image: ImageID?) {
        self.url = url
        self.image = image
    }
}

/// A feed's icon as a check found it: its address and, when it could be read, its versions in the media
/// folder (the store records them as an image of the feeds' account).
public struct FetchedIcon: Hashable, Sendable {
    public let url: String
    public let versions: [StoredImageVersion]?

    public init(url: String, versions: [StoredImageVersion]?) {
        self.url = url
        self.versions = versions
    }
}

/// `ETag` and `Last-Modified` of the last answer, sent back as `If-None-Match` and `If-Modified-Since`.
public struct FeedValidators: Hashable, Sendable {
    public let etag: String?
    public let lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A member's request to subscribe their chat to a feed.
public struct NewSubscription: Hashable, Sendable {
    public let chatID: ChatID
    public let subscriberID: UserID
    /// As pasted; validated by the router.
    public let url: String
    public let createdAt: Date

    public init(chatID: ChatID, subscriberID: UserID, url: String, createdAt: Date) {
        self.chatID = chatID
        self.subscriberID = subscriberID
        self.url = url
        self.createdAt = createdAt
    }
}

/// A member's request about one of their chat's subscriptions (unsubscribe, retry now).
public struct FeedRequest: Hashable, Sendable {
    public let subscriptionID: FeedSubscriptionID
    public let chatID: ChatID
    public let requesterID: UserID
    public let date: Date

    public init(subscriptionID: FeedSubscriptionID, chatID: ChatID, requesterID: UserID, date: Date) {
        self.subscriptionID = subscriptionID
        self.chatID = chatID
        self.requesterID = requesterID
        self.date = date
    }
}

/// What one check of a subscription found, from the poller.
public struct FeedCheck: Hashable, Sendable {
    public let subscriptionID: FeedSubscriptionID
    public let checkedAt: Date
    public let outcome: Outcome
    /// When to check again (for a failure: the back-off; ignored once it pauses).
    public let nextCheck: Date
    /// Who posts the items: the feeds' bot account.
    public let authorID: UserID
    /// The most items one check posts; the rest wait for the next.
    public let postLimit: Int

    public enum Outcome: Hashable, Sendable {
        /// The feed, its items oldest first. `url` is set when the subscription moves (a page named its feed,
        /// a permanent redirect).
        case loaded(title: String, items: [FeedItem], validators: FeedValidators, url: String?, icon: FetchedIcon? = nil)
        /// 304: nothing new.
        case notModified
        /// `reason` is for a person.
        case failed(reason: String)
    }

    public init(subscriptionID: FeedSubscriptionID, checkedAt: Date, outcome: Outcome, nextCheck: Date, authorID: UserID, postLimit: Int) {
        self.subscriptionID = subscriptionID
        self.checkedAt = checkedAt
        self.outcome = outcome
        self.nextCheck = nextCheck
        self.authorID = authorID
        self.postLimit = postLimit
    }
}

/// A check as stored: the subscription in its new state and the messages it posted, oldest first.
public struct CheckedFeed: Hashable, Sendable {
    public let subscription: FeedSubscription
    public let posted: [Message]
    /// Set when the address was a page naming a feed the chat follows already: this subscription is gone
    /// (one row per feed, however it was found), and nothing was posted.
    public let duplicateOf: FeedSubscriptionID?

    public init(subscription: FeedSubscription, posted: [Message], duplicateOf: FeedSubscriptionID? = nil) {
        self.subscription = subscription
        self.posted = posted
        self.duplicateOf = duplicateOf
    }
}

extension FeedCheck {
    /// The feed's own address when the subscription's was a page that named it.
    public var movedURL: String? {
        if case .loaded(_, _, _, let moved?, _) = outcome { moved } else { nil }
    }
}
