import BoundedWork
import Dispatch
import HTTPTestSupport
import Synchronization
import Testing

/// The threads' queue (password hashes, images, DNS lookups): a job past its waiting limit is refused at once, and
/// every refusal is counted and reported, so none goes unseen.
@Suite(.timeLimit(.minutes(1))) struct BoundedWorkQueueTests {
    @Test func aJobPastTheLimitIsRefusedCountedAndReported() async throws {
        let queue = BoundedWorkQueue(label: "parlor.test", concurrency: 1, waitingLimit: 1)
        let reported = Mutex<[Int]>([])
        queue.reportRefusals { total in reported.withLock { $0.append(total) } }
        let release = DispatchSemaphore(value: 0)
        let blocked = Task { await queue.run { release.wait(); return 1 } }
        // The first job holds the one thread; the second waits.
        try #require(await eventually { queue.load.running == 1 }, "the first job runs")
        let waiting = Task { await queue.run { 2 } }
        try #require(await eventually { queue.load.waiting == 1 }, "the second job waits")
        #expect(await queue.run { 3 } == nil, "past the waiting limit")
        #expect(await queue.run { 4 } == nil)
        #expect(queue.refused == 2 && reported.withLock { $0 } == [1, 2])
        release.signal()
        let (first, second) = (await blocked.value, await waiting.value)
        #expect(first == 1 && second == 2, "what was admitted runs")
        #expect(await queue.run { 5 } == 5 && queue.refused == 2)
    }
}
