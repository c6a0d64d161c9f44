import BoundedWork
import Clocks
import Logging
import ParlorDomain

/// Pushes waiting to be sent, sent a few at a time by ``run()`` (a service of its own): a push never delays a
/// send, and a slow or failing push service delays only its own pushes. The queue is bounded: past `capacity`
/// waiting, new pushes are dropped (and counted). A push the service asks to retry (429, 5xx, no connection) is
/// tried again after a pause that grows, at most `attempts` times; a subscription the service says is gone is
/// handed to `gone`, which removes it through the router.
public final class PushQueue: Sendable {
    public struct Job: Sendable {
        public let payload: [UInt8]
        public let subscription: PushSubscription
        public let urgency: String

        public init(payload: [UInt8], subscription: PushSubscription, urgency: String = "normal") {
            self.payload = payload
            self.subscription = subscription
            self.urgency = urgency
        }
    }

    /// How each push ended, for metrics: "sent", "failed", "gone" (subscription removed), "dropped" (queue full
    /// or retries spent).
    public typealias Outcomes = @Sendable (String) -> Void

    let delivery: any PushDelivering
    /// Removes a subscription its push service said is gone (through the router: nothing else writes).
    let gone: @Sendable (PushSubscription) async -> Void
    let concurrency: Int
    let attempts: Int
    let firstPause: Duration
    /// Times the pauses between attempts (a test drives it).
    let timer: AnyClock<Duration>
    let outcomes: Outcomes
    let logger: Logger
    private let jobs: WorkerQueue<Job>

    public init(
        delivery: any PushDelivering, gone: @escaping @Sendable (PushSubscription) async -> Void, capacity: Int = 10_000, concurrency: Int = 8, attempts: Int = 4,
        firstPause: Duration = .seconds(2), timer: AnyClock<Duration> = AnyClock(ContinuousClock()), logger: Logger, refused: @escaping @Sendable (Int) -> Void = { _ in }, outcomes: @escaping Outcomes = { _ in }
    ) {
        self.delivery = delivery
        self.gone = gone
        self.concurrency = max(1, concurrency)
        self.attempts = max(1, attempts)
        self.firstPause = firstPause
        self.timer = timer
        self.logger = logger
        self.outcomes = outcomes
        jobs = WorkerQueue(high: max(1, capacity), concurrency: max(1, concurrency), refused: refused)
    }

    /// Queues a push; false (and counted as dropped) when the queue is full.
    @discardableResult
    public func enqueue(_ job: Job) -> Bool {
        guard jobs.submit(job) else {
            outcomes("dropped")
            return false
        }
        return true
    }

    /// Sends what is queued, `concurrency` at a time, until cancelled.
    public func run() async {
        await jobs.run { [self] job in await send(job) }
    }

    /// Returns once every push queued so far has been sent, retried to the end, or given up.
    public func settled() async { await jobs.settled() }

    /// One push, with its retries.
    func send(_ job: Job) async {
        var pause = firstPause
        for attempt in 1...attempts {
            switch await delivery.deliver(job.payload, to: job.subscription, urgency: job.urgency) {
            case .delivered:
                outcomes("sent")
                return
            case .gone:
                outcomes("gone")
                logger.info("push subscription gone, removed", metadata: ["subscription": "\(job.subscription.id)"])
                await gone(job.subscription)
                return
            case .failed(let reason):
                outcomes("failed")
                logger.notice("push refused", metadata: ["subscription": "\(job.subscription.id)", "reason": "\(reason)"])
                return
            case .retry(let after):
                guard attempt < attempts else { break }
                do { try await timer.sleep(for: max(after ?? pause, pause)) } catch { return }
                pause *= 4
            }
        }
        outcomes("dropped")
        logger.notice("push not delivered after retries", metadata: ["subscription": "\(job.subscription.id)", "attempts": "\(attempts)"])
    }
}
