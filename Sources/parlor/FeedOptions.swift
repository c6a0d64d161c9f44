import ArgumentParser
import Foundation
import OutboundHTTP
import ParlorDomain
import ParlorFeeds
import ParlorFeedsHTTP

/// How `parlor serve` and `parlor feed check` fetch feeds.
struct FeedOptions: ParsableArguments {
    @Option(name: .customLong("feed-port"), help: "Port feeds may be fetched from (repeatable; default 80 and 443).")
    var feedPorts: [Int] = []

    @Flag(help: "Let feeds be fetched from loopback addresses (for tests; private and link-local addresses stay refused).")
    var feedAllowLoopback = false

    @Option(help: "Seconds one fetch of a feed may take, redirects included.")
    var feedTimeout: Double = 20

    @Option(help: "Fewest seconds between two checks of one feed.")
    var feedMinimumInterval: Double = 300

    @Option(help: "Seconds between checks of a feed that says nothing of how often to look.")
    var feedInterval: Double = 1_800

    @Option(help: "Most new items one check posts into a chat; the rest follow at the next checks.")
    var feedPostLimit: Int = 3

    @Option(help: "Longest pause, in seconds, between two looks at which feeds are due.")
    var feedRound: Double = 15

    func validate() throws {
        guard feedPorts.allSatisfy({ (1...65_535).contains($0) }) else { throw ValidationError("A feed port is between 1 and 65535.") }
        guard feedTimeout > 0, feedTimeout <= 300 else { throw ValidationError("--feed-timeout is between 0 and 300 seconds.") }
        guard feedMinimumInterval >= 1, feedMinimumInterval <= 86_400 else { throw ValidationError("--feed-minimum-interval is 1 to 86400 seconds.") }
        guard feedInterval >= 1, feedInterval <= 604_800 else { throw ValidationError("--feed-interval is 1 to 604800 seconds.") }
        guard (1...50).contains(feedPostLimit) else { throw ValidationError("--feed-post-limit is 1 to 50.") }
        guard feedRound >= 0.05, feedRound <= 3_600 else { throw ValidationError("--feed-round is 0.05 to 3600 seconds.") }
    }

    var fetcher: HTTPFeedFetcher {
        HTTPFeedFetcher(
            policy: AddressPolicy(ports: feedPorts.isEmpty ? [80, 443] : Set(feedPorts), allowsLoopback: feedAllowLoopback),
            timeout: .milliseconds(Int64(feedTimeout * 1_000))
        )
    }

    /// The poller's part of ``Composition/Settings``.
    var composed: Composition.Feeds {
        Composition.Feeds(
            fetcher: fetcher, minimumInterval: feedMinimumInterval, defaultInterval: feedInterval, postLimit: feedPostLimit,
            round: .milliseconds(Int64(feedRound * 1_000))
        )
    }

    /// The checker, with `icons` making feeds' icons into avatars (none for `parlor feed check`).
    func checker(icons: (any FeedIconMaker)? = nil) -> FeedChecker {
        FeedChecker(fetcher: fetcher, icons: icons, minimumInterval: feedMinimumInterval, defaultInterval: feedInterval)
    }
}
