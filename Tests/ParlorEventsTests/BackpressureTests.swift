import ParlorDomain
import Synchronization
import Testing
@testable import ParlorEvents
@testable import ParlorLive

/// Sources of events wait while the live pages are far behind, and go on once the pages caught up halfway.
@Suite struct BackpressureTests {
    static let event = PublishedEvent(.user(.signUpFailed(handle: "x", reason: .unavailable)))

    @Test func aSourceWaitsWhileThePagesAreTooFarBehind() async throws {
        let queue = LiveWorkQueue(limit: 4)
        for _ in 0..<3 { queue.push(.event(Self.event)) }
        await queue.room()  // three behind, under the limit: at once
        queue.push(.event(Self.event))
        let through = Mutex(false)
        let source = Task {
            await queue.room()
            through.withLock { $0 = true }
        }
        // Bounded: the source reaches its wait within a few thousand turns.
        for _ in 0..<100_000 where queue.waitingCount == 0 { await Task.yield() }
        #expect(queue.waitingCount == 1)
        _ = await queue.takeAll()
        queue.applied(1)  // three behind: still more than half the limit
        #expect(queue.waitingCount == 1)
        #expect(!through.withLock { $0 })
        queue.applied(1)  // two behind: half the limit
        await source.value
        #expect(through.withLock { $0 })
        #expect(queue.waitingCount == 0)
    }

    @Test func finishingLetsEveryWaitingSourceGo() async {
        let queue = LiveWorkQueue(limit: 1)
        queue.push(.event(Self.event))
        let source = Task { await queue.room() }
        for _ in 0..<100_000 where queue.waitingCount == 0 { await Task.yield() }
        queue.finish()
        await source.value
        #expect(queue.waitingCount == 0)
    }
}
