import Synchronization

/// The one shape of Parlor's background workers (link cards, bots' webhooks, pushes, whom a message is pushed to):
/// jobs wait here and ``run(_:)`` hands them, `concurrency` at a time, to the worker. The wait is bounded with two
/// marks: once `high` jobs wait, new ones are refused (and counted) until the backlog is down to `low`, so a flood
/// is turned away in one stretch rather than one job in two. A refusal is told to `refused` (the worker's metric and
/// its log line, at most once a minute). ``settled()`` returns once nothing waits and nothing runs (for tests); a
/// cancelled ``run(_:)`` returns at once, its jobs under way cancelled, and what still waits is dropped with it.
/// Nothing polls: the runner sleeps until a job or a cancellation wakes it.
public final class WorkerQueue<Job: Sendable>: Sendable {
    private struct State {
        var jobs: [Job] = []
        var next = 0
        var running = 0
        /// Refusing since the high mark was reached, until the backlog falls to the low one.
        var refusing = false
        var refusedSoFar = 0
        /// The runner, waiting for a job.
        var runner: CheckedContinuation<Job?, Never>?
        var stopped = false
        /// Tests waiting for the queue to settle.
        var settling: [CheckedContinuation<Void, Never>] = []

        var waiting: Int { jobs.count - next }

        mutating func take() -> Job? {
            guard next < jobs.count else { return nil }
            let job = jobs[next]
            next += 1
            // Taken jobs are let go once they are half the array, so it never holds more than twice the backlog.
            if next > 64, next * 2 > jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            return job
        }

        mutating func settledWaiters() -> [CheckedContinuation<Void, Never>] {
            guard waiting == 0, running == 0 else { return [] }
            defer { settling = [] }
            return settling
        }
    }

    public let high: Int
    public let low: Int
    public let concurrency: Int
    private let refused: @Sendable (Int) -> Void
    private let state = Mutex(State())

    /// `high` waiting jobs at the most (at least 1); refusing from there until `low` wait (below `high`);
    /// `refused` is told the count so far at each refusal.
    public init(high: Int, low: Int? = nil, concurrency: Int, refused: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.high = max(1, high)
        self.low = min(max(0, low ?? self.high / 2), self.high - 1)
        self.concurrency = max(1, concurrency)
        self.refused = refused
    }

    /// Jobs waiting now.
    public var waiting: Int { state.withLock { $0.waiting } }
    /// Jobs refused since the start.
    public var refusedCount: Int { state.withLock { $0.refusedSoFar } }

    private enum Admission {
        case queued
        /// The runner was waiting: the job goes straight to it.
        case handed(CheckedContinuation<Job?, Never>)
        case refused(Int)
        /// The runner stopped (shutting down): nothing is taken, and nothing counted.
        case stopped
    }

    /// Queues a job; false when the queue is refusing (counted) or its runner stopped (not counted: shutting down).
    @discardableResult
    public func submit(_ job: Job) -> Bool {
        let outcome: Admission = state.withLock { state in
            if state.stopped { return .stopped }
            if state.refusing, state.waiting > low { state.refusedSoFar += 1; return .refused(state.refusedSoFar) }
            state.refusing = false
            if state.waiting >= high {
                state.refusing = true
                state.refusedSoFar += 1
                return .refused(state.refusedSoFar)
            }
            if let runner = state.runner {
                state.runner = nil
                state.running += 1
                return .handed(runner)
            }
            state.jobs.append(job)
            return .queued
        }
        switch outcome {
        case .queued: return true
        case .handed(let runner):
            runner.resume(returning: job)
            return true
        case .refused(let count):
            refused(count)
            return false
        case .stopped:
            return false
        }
    }

    /// Hands every job to `work`, at most `concurrency` at once, until cancelled.
    public func run(_ work: @escaping @Sendable (Job) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            while let job = await next() {
                group.addTask {
                    await work(job)
                    self.finished()
                }
                running += 1
                if running >= concurrency {
                    await group.next()
                    running -= 1
                }
            }
            group.cancelAll()
        }
        // Stopped: nothing more is taken, and whoever waits for the queue to settle is let go.
        let waiters = state.withLock { state in
            state.stopped = true
            state.jobs = []
            state.next = 0
            defer { state.settling = [] }
            return state.settling
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once nothing waits and nothing runs (or the queue stopped).
    public func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.stopped || (state.waiting == 0 && state.running == 0) { return true }
                state.settling.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The next job; nil once the runner's task is cancelled.
    private func next() async -> Job? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Job?, Never>) in
                let ready: Job?? = state.withLock { state in
                    if Task.isCancelled { return .some(nil) }
                    if let job = state.take() {
                        state.running += 1
                        return .some(job)
                    }
                    state.runner = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let runner = state.withLock { state in
                defer { state.runner = nil }
                return state.runner
            }
            runner?.resume(returning: nil)
        }
    }

    private func finished() {
        let waiters = state.withLock { state in
            state.running -= 1
            return state.settledWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }
}
