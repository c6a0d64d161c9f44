import Foundation
import ParlorDomain

/// One check of a subscription: fetch (conditionally), read the feed (or the feed a page names), and say
/// when to check again: what the feed and the server ask (RSS `ttl`, `Cache-Control: max-age`,
/// `Retry-After`), never sooner than ``minimumInterval``, later after each failure.
public struct FeedChecker: Sendable {
    public let fetcher: any FeedFetcher
    /// Makes feeds' icons into avatars; none: posts show initials.
    public let icons: (any FeedIconMaker)?
    public let minimumInterval: TimeInterval
    /// When neither the feed nor its server says.
    public let defaultInterval: TimeInterval
    /// The longest wait after failures.
    public static let longestBackOff: TimeInterval = 6 * 3_600
    /// The most items of one document considered (the newest).
    public static let itemLimit = 500

    public init(fetcher: any FeedFetcher, icons: (any FeedIconMaker)? = nil, minimumInterval: TimeInterval = 300, defaultInterval: TimeInterval = 1_800) {
        self.fetcher = fetcher
        self.icons = icons
        self.minimumInterval = minimumInterval
        self.defaultInterval = max(defaultInterval, minimumInterval)
    }

    /// What a check of `subscription` at `now` finds; nil when it was interrupted (Parlor is stopping):
    /// an interrupted check is not a failure and is not recorded.
    public func check(_ subscription: FeedSubscription, now: Date) async -> (outcome: FeedCheck.Outcome, next: Date)? {
        do {
            switch try await read(subscription.url, validators: subscription.validators) {
            case .notModified(let maxAge):
                return (.notModified, now + interval(maxAge.map(TimeInterval.init)))
            case .feed(let feed, let fetched, let moved):
                let items = Array(feed.itemsOldestFirst.suffix(Self.itemLimit))
                let hints = [feed.ttl.map { TimeInterval($0) * 60 }, fetched.maxAge.map(TimeInterval.init)]
                let icon = await icon(feed.icon, for: subscription)
                return (
                    .loaded(title: feed.title, items: items, validators: fetched.validators, url: moved, icon: icon),
                    now + interval(hints.compactMap { $0 }.max())
                )
            }
        } catch let error as FeedFetchError {
            if error == .cancelled || Task.isCancelled { return nil }
            return (.failed(reason: Self.reason(error)), failureNext(subscription, now, retryAfter: error.retryAfter))
        } catch {
            if Task.isCancelled { return nil }
            return (.failed(reason: Self.reason(error)), failureNext(subscription, now, retryAfter: nil))
        }
    }

    /// Why a check failed, as the feeds list says it: what the address is when it is not a feed, otherwise
    /// "The feed could not be read: …" with the cause.
    public static func reason(_ error: any Error) -> String {
        switch error {
        case is NoFeedOnPage: "This address is a web page, not a feed, and the page names none"
        case FeedError.notAFeed: "This address is not a feed: it is not RSS, Atom or JSON Feed"
        case let error as FeedError: "The feed could not be read: \(error.description)"
        case let error as FeedFetchError: "The feed could not be read: \(error.description)"
        default: "The feed could not be read"
        }
    }

    /// The feed's icon when it names one the subscription has not read yet (once per address: one that
    /// cannot be read is not fetched again until the feed names another).
    func icon(_ url: String?, for subscription: FeedSubscription) async -> FetchedIcon? {
        guard let url, let icons, url != subscription.icon?.url else { return nil }
        guard let answer = try? await fetcher.fetch(url, validators: FeedValidators()), let bytes = answer.body, !bytes.isEmpty else {
            return FetchedIcon(url: url, versions: nil)
        }
        return FetchedIcon(url: url, versions: await icons.icon(from: bytes))
    }

    /// What reading a feed's address gave.
    public enum Reading: Sendable {
        case notModified(maxAge: Int?)
        /// The feed, the answer it came in, and the feed's address when `url` was a page that named it.
        case feed(Feed, FetchedFeed, moved: String?)
    }

    /// The page named no feed.
    public struct NoFeedOnPage: Error, CustomStringConvertible {
        public var description: String { "the page does not name a feed" }
    }

    /// Fetches `url` and reads the feed there, or the feed the page there advertises. Throws
    /// ``FeedFetchError``, ``FeedError`` or ``NoFeedOnPage``.
    public func read(_ url: String, validators: FeedValidators = FeedValidators()) async throws -> Reading {
        let fetched = try await fetcher.fetch(url, validators: validators)
        guard let body = fetched.body else { return .notModified(maxAge: fetched.maxAge) }
        do {
            return .feed(try FeedParser.parse(body, url: URL(string: fetched.url)), fetched, moved: nil)
        } catch {
            // A page instead of a feed: the feed it advertises, once.
            guard FeedDiscovery.looksLikeHTML(body, contentType: fetched.contentType) else { throw error }
            guard let advertised = FeedDiscovery.feeds(inPage: body, base: URL(string: fetched.url)).first else { throw NoFeedOnPage() }
            let feedAnswer = try await fetcher.fetch(advertised, validators: FeedValidators())
            guard let feedBody = feedAnswer.body else { throw FeedError.empty }
            return .feed(try FeedParser.parse(feedBody, url: URL(string: feedAnswer.url)), feedAnswer, moved: advertised)
        }
    }

    /// The wait before the next check when the feed or its server asked for `hint` seconds.
    func interval(_ hint: TimeInterval?) -> TimeInterval {
        max(minimumInterval, hint ?? defaultInterval)
    }

    /// After the `failures + 1`-th failure in a row: three times longer each time, at least what the
    /// server asked for.
    func failureNext(_ subscription: FeedSubscription, _ now: Date, retryAfter: Int?) -> Date {
        let exponent = min(max(subscription.failures, 0), 8)
        let backOff = min(minimumInterval * pow(3, Double(exponent)), Self.longestBackOff)
        return now + max(backOff, TimeInterval(retryAfter ?? 0))
    }
}
