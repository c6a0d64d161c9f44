import Dispatch
import Synchronization

/// Where slow, blocking work runs (password hashes, image processing): on at most `concurrency` threads
/// of its own, so it never holds the threads that serve every other request. At most `waitingLimit` more
/// jobs wait their turn, as closures, not as blocked threads; past that a burst is refused at once (the
/// caller answers 503) instead of queueing without bound.
public final class BoundedWorkQueue: Sendable {
    private struct State {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
        var nextWaiting = 0
    }

    public let concurrency: Int
    public let waitingLimit: Int
    private let state = Mutex(State())
    private let threads: DispatchQueue
    private let refusals = Atomic<Int>(0)
    private let reporter = Mutex<(@Sendable (Int) -> Void)?>(nil)

    /// `label` names the threads in a debugger or a profile ("parlor.passwords").
    public init(label: String, concurrency: Int, waitingLimit: Int) {
        threads = DispatchQueue(label: label, attributes: .concurrent)
        self.concurrency = max(1, concurrency)
        self.waitingLimit = max(0, waitingLimit)
    }

    /// Runs `body` on one of the queue's threads; nil at once when the queue is full.
    public func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result?, Never>) in
            let job: @Sendable () -> Void = { continuation.resume(returning: body()) }
            switch admit(job) {
            case .start: start(job)
            case .wait: break
            case .refuse:
                let total = refusals.add(1, ordering: .relaxed).newValue
                reporter.withLock { $0 }?(total)
                continuation.resume(returning: nil)
            }
        }
    }

    private enum Admission { case start, wait, refuse }

    private func admit(_ job: @escaping @Sendable () -> Void) -> Admission {
        state.withLock { state in
            if state.running < concurrency {
                state.running += 1
                return .start
            }
            guard state.waiting.count - state.nextWaiting < waitingLimit else { return .refuse }
            state.waiting.append(job)
            return .wait
        }
    }

    /// Jobs refused so far because the queue was full.
    public var refused: Int { refusals.load(ordering: .relaxed) }

    /// Tells `report` the total refused so far each time a job is refused (a count on /metrics, a line in the log).
    public func reportRefusals(to report: @escaping @Sendable (Int) -> Void) {
        reporter.withLock { $0 = report }
    }

    /// Jobs waiting or running now.
    public var load: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiting.count - $0.nextWaiting) }
    }

    private func start(_ job: @escaping @Sendable () -> Void) {
        threads.async { [self] in
            job()
            // The thread that finished takes the next waiting job, if any; otherwise one fewer runs.
            if let next = takeNext() { start(next) }
        }
    }

    private func takeNext() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.nextWaiting < state.waiting.count else {
                state.running -= 1
                state.waiting.removeAll(keepingCapacity: true)
                state.nextWaiting = 0
                return nil
            }
            let job = state.waiting[state.nextWaiting]
            state.nextWaiting += 1
            if state.nextWaiting > 64, state.nextWaiting * 2 > state.waiting.count {
                state.waiting.removeFirst(state.nextWaiting)
                state.nextWaiting = 0
            }
            return job
        }
    }
}
