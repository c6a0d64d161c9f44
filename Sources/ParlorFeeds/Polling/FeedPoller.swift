import BoundedWork
import Clocks
import Foundation
import Logging
import ParlorDomain
import Synchronization

/// The feed poller: an event source like Parlor Bot. Each round it reads the subscriptions that are due and
/// queues their checks in the workers' queue (``WorkerQueue``), checked a few at a time; each finding goes to the
/// router as `FeedEvent.checking`, which stores the new items as messages from the feeds' account. The next round
/// waits until the queue has settled. Its state (validators, seen keys, next check, failures) lives in the store,
/// so a restart resumes where it stopped. Run ``run()`` as a service.
public final class FeedPoller: EventObserver {
    /// The feeds' account: the author of every post.
    public static let handle = "parlor_feeds"

    private let sink: any EventSink
    private let store: any FeedReads
    private let checker: FeedChecker
    private let clock: any WallClock
    private let author: UserID
    private let postLimit: Int
    private let round: Duration
    private let logger: Logger
    private let wakeup: Wakeup
    /// The checks of the round under way.
    private let checks: WorkerQueue<FeedSubscription>

    /// - Parameters:
    ///   - postLimit: the most items one check posts (the rest wait for the next).
    ///   - round: the longest pause between two looks at what is due, by `timer` (a test drives it).
    ///   - refused: told the count so far when a check finds the queue full (never in a round of its own size).
    public init(
        sink: any EventSink, store: any FeedReads, checker: FeedChecker, clock: any WallClock, author: UserID, postLimit: Int = 3,
        concurrency: Int = 4, round: Duration = .seconds(15), timer: AnyClock<Duration> = AnyClock(ContinuousClock()),
        logger: Logger = Logger(label: "parlor.feeds"), refused: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        wakeup = Wakeup(clock: timer)
        checks = WorkerQueue(high: Self.roundLimit * 2, concurrency: max(1, concurrency), refused: refused)
        self.sink = sink
        self.store = store
        self.checker = checker
        self.clock = clock
        self.author = author
        self.postLimit = max(1, postLimit)
        self.round = round
        self.logger = logger
    }

    /// Finds the feeds' account, creating it on first start. Refuses when a person holds the handle.
    /// Add the poller as an observer of the router so a new subscription or a retry is checked at once.
    public static func account(router: any EventSink, store: any ChatReads) async throws -> User {
        if let existing = try await store.user(handle: handle) {
            guard existing.isBot else { throw Refusal.handleTaken(handle) }
            return existing
        }
        switch await router.send(.signingUp(NewUser(handle: handle, displayName: "Feeds", isBot: true))) {
        case .signedUp(let user): return user
        case .signUpFailed(_, .handleTaken):
            // Another instance starting at the same moment made it first.
            guard let made = try await store.user(handle: handle), made.isBot else { throw Refusal.handleTaken(handle) }
            return made
        case .signUpFailed(_, let reason): throw reason
        default: throw Refusal.unavailable
        }
    }

    public func observe(_ event: DomainEvent, router: any EventSink) {
        switch event {
        case .feed(.subscribed), .feed(.retried): wakeup.signal()
        default: break
        }
    }

    /// Rounds ``run()`` has finished: what an operator's graph or a test waits on ("three more rounds and the
    /// paused feed was not fetched") instead of the clock.
    private let roundsDone = Atomic<Int>(0)
    public var rounds: Int { roundsDone.load(ordering: .relaxed) }

    /// The most subscriptions one round takes.
    static let roundLimit = 64

    /// Checks due subscriptions until cancelled. A check in flight when cancelled is dropped, not
    /// recorded: the subscription stays due and is checked after the restart.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runChecks() }
            group.addTask {
                while !Task.isCancelled {
                    // A full round may have left more due: look again at once.
                    let checked = await self.pollOnce()
                    guard !Task.isCancelled else { return }
                    self.roundsDone.add(1, ordering: .relaxed)
                    if checked < Self.roundLimit { await self.wakeup.wait(for: self.round) }
                }
            }
        }
    }

    /// Makes the checks queued by ``pollOnce()``, `concurrency` at a time, until cancelled (``run()`` runs it).
    public func runChecks() async {
        await checks.run { [self] subscription in await check(subscription) }
    }

    /// One round: every subscription due now, queued for its check; returns once they are checked (or the queue
    /// stopped), with the number queued. Needs ``runChecks()`` running (``run()`` runs both).
    @discardableResult
    public func pollOnce() async -> Int {
        let due: [FeedSubscription]
        do {
            due = try await store.dueFeedSubscriptions(at: clock.now, limit: Self.roundLimit)
        } catch {
            logger.error("due feeds not read", metadata: ["error": "\(error)"])
            return 0
        }
        var queued = 0
        for subscription in due where !Task.isCancelled {
            if checks.submit(subscription) { queued += 1 }
        }
        await checks.settled()
        return queued
    }

    private func check(_ subscription: FeedSubscription) async {
        let started = clock.now
        guard let (outcome, next) = await checker.check(subscription, now: started), !Task.isCancelled else { return }
        let finding = FeedCheck(
            subscriptionID: subscription.id, checkedAt: clock.now, outcome: outcome, nextCheck: next, authorID: author, postLimit: postLimit
        )
        let result = await sink.send(.checking(finding))
        if case .checked(let stored) = result {
            var metadata: Logger.Metadata = ["subscription": "\(subscription.id)", "status": "\(Self.word(stored.status))"]
            if case .failed(let reason) = outcome { metadata["reason"] = "\(reason)" }
            logger.info("feed checked", metadata: metadata)
        }
    }

    static func word(_ status: FeedStatus) -> String {
        switch status {
        case .loading: "loading"
        case .loaded(let newItems, _): "loaded, \(newItems) new"
        case .failed: "failed"
        case .paused: "paused"
        }
    }
}
