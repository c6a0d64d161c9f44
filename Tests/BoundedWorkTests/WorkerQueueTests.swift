import BoundedWork
import Synchronization
import Testing

/// The workers' queue: at most `concurrency` jobs at once, refusals between the two marks, `settled()` when all is
/// done, and a cancelled runner that returns at once with its jobs under way cancelled. Nothing here sleeps to see
/// whether something happened: each step waits for what it expects.
@Suite(.timeLimit(.minutes(1))) struct WorkerQueueTests {
    /// Jobs that start, then wait until they are let go.
    final class Gate: Sendable {
        private struct State {
            var started: [Int] = []
            var read = 0
            var released: Set<Int> = []
            var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
            var watcher: (count: Int, continuation: CheckedContinuation<[Int], Never>)?

            /// The next `count` starts, if they happened, marked read.
            mutating func take(_ count: Int) -> [Int]? {
                guard started.count - read >= count else { return nil }
                defer { read += count }
                return Array(started[read..<read + count])
            }
        }

        private let state = Mutex(State())

        /// A job's work: says it started, then waits to be let go.
        func work(_ job: Int) async {
            await withCheckedContinuation { continuation in
                let (now, watcher) = state.withLock { state -> (Bool, (CheckedContinuation<[Int], Never>, [Int])?) in
                    state.started.append(job)
                    var woken: (CheckedContinuation<[Int], Never>, [Int])?
                    if let watcher = state.watcher, let starts = state.take(watcher.count) {
                        state.watcher = nil
                        woken = (watcher.continuation, starts)
                    }
                    if state.released.contains(job) { return (true, woken) }
                    state.waiters[job] = continuation
                    return (false, woken)
                }
                if let (watcher, starts) = watcher { watcher.resume(returning: starts) }
                if now { continuation.resume() }
            }
        }

        func release(_ job: Int) {
            let waiter = state.withLock { state in
                state.released.insert(job)
                return state.waiters.removeValue(forKey: job)
            }
            waiter?.resume()
        }

        /// The next `count` jobs to start, once they have.
        func nextStarts(_ count: Int) async -> [Int] {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> [Int]? in
                    if let starts = state.take(count) { return starts }
                    state.watcher = (count, continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        var running: Int { state.withLock { $0.waiters.count } }
    }

    @Test func atMostConcurrencyJobsRunAndSettledWaitsForTheLast() async {
        let queue = WorkerQueue<Int>(high: 100, concurrency: 3)
        let gate = Gate()
        for job in 0..<10 { #expect(queue.submit(job)) }
        let runner = Task { await queue.run { await gate.work($0) } }
        #expect(Set(await gate.nextStarts(3)) == [0, 1, 2], "three at once, the first three")
        #expect(queue.waiting == 7)
        gate.release(1)
        #expect(await gate.nextStarts(1) == [3], "one ended, the next starts")
        for job in [0, 2] + Array(3..<10) { gate.release(job) }
        #expect(Set(await gate.nextStarts(6)) == Set(4..<10))
        await queue.settled()
        #expect(queue.waiting == 0 && gate.running == 0)
        runner.cancel()
        await runner.value
    }

    @Test func pastTheHighMarkJobsAreRefusedUntilTheBacklogIsDownToTheLowOne() async {
        let refusals = Mutex<[Int]>([])
        let queue = WorkerQueue<Int>(high: 4, low: 2, concurrency: 1) { total in refusals.withLock { $0.append(total) } }
        for job in 0..<4 { #expect(queue.submit(job)) }
        #expect(!queue.submit(4), "four wait: the fifth is refused")
        let gate = Gate()
        let runner = Task { await queue.run { await gate.work($0) } }
        #expect(await gate.nextStarts(1) == [0])
        #expect(queue.waiting == 3)
        #expect(!queue.submit(5), "three wait, above the low mark: still refused")
        gate.release(0)
        #expect(await gate.nextStarts(1) == [1])
        #expect(queue.waiting == 2)
        #expect(queue.submit(6), "down to the low mark: taken again")
        #expect(refusals.withLock { $0 } == [1, 2] && queue.refusedCount == 2, "each refusal told, with the count so far")
        for job in [1, 2, 3, 6] { gate.release(job) }
        #expect(await gate.nextStarts(3) == [2, 3, 6], "one at a time, in order")
        await queue.settled()
        runner.cancel()
        await runner.value
    }

    @Test func aCancelledRunnerReturnsAtOnceAndCancelsTheJobsUnderWay() async {
        let queue = WorkerQueue<Int>(high: 10, concurrency: 2)
        let cancelled = Atomic(0)
        let (starts, started) = AsyncStream.makeStream(of: Int.self)
        let runner = Task {
            await queue.run { job in
                started.yield(job)
                // A job that would take an hour unless cancelled.
                do { try await Task.sleep(for: .seconds(3_600)) } catch { cancelled.add(1, ordering: .relaxed) }
            }
        }
        #expect(queue.submit(1) && queue.submit(2) && queue.submit(3))
        var seen = 0
        for await _ in starts {
            seen += 1
            if seen == 2 { break }
        }
        runner.cancel()
        await runner.value
        #expect(cancelled.load(ordering: .relaxed) == 2, "both jobs under way were cancelled")
        #expect(!queue.submit(4), "a stopped queue takes nothing")
        await queue.settled()
    }

    @Test func anIdleRunnerIsWokenByTheFirstJobAndEndsWhenCancelled() async {
        let queue = WorkerQueue<String>(high: 1, concurrency: 1)
        await queue.settled()
        let (done, finished) = AsyncStream.makeStream(of: String.self)
        let runner = Task { await queue.run { finished.yield($0) } }
        // The runner may or may not be waiting yet: either way the job reaches it.
        #expect(queue.submit("first"))
        var iterator = done.makeAsyncIterator()
        #expect(await iterator.next() == "first")
        await queue.settled()
        runner.cancel()
        await runner.value
    }
}
