import Clocks
import Crypto
import Foundation
import HTTPTestSupport
import InMemoryStores
import Logging
import OutboundHTTP
import ParlorDomain
import ParlorFeeds
import ParlorNotifications
import ParlorPush
import Synchronization
import Testing

/// The queue that sends pushes, against a push service on 127.0.0.1 that answers as each test scripts.
@Suite struct PushQueueTests {
    final class Outcomes: Sendable {
        let seen = Mutex<[String]>([])
        func record(_ outcome: String) { seen.withLock { $0.append(outcome) } }
        var all: [String] { seen.withLock { $0 } }

        /// Waits until `count` outcomes are in, through `eventually`. A bound, not a speed: in the suite's first
        /// minutes a loopback answer was held back for the whole delivery timeout (30 s) twice, so a push took its
        /// third attempt.
        func wait(for count: Int) async throws -> [String] {
            _ = await eventually(within: 200, every: .milliseconds(10)) { all.count >= count }
            return all
        }
    }

    static func subscription(_ endpoint: String) -> PushSubscription {
        let key = P256.KeyAgreement.PrivateKey()
        return PushSubscription(
            id: 1, userID: UserID(1), endpoint: endpoint, p256dh: Base64URL.encode(key.publicKey.x963Representation),
            auth: Base64URL.encode(WebPushEncryption.randomBytes(16)), label: "test", createdAt: Date()
        )
    }

    static func queue(
        _ service: ScriptedServer, outcomes: Outcomes, capacity: Int = 100, store: any PushStore = InMemoryPushStore(chats: InMemoryChatStore()),
        timer: AnyClock<Duration> = AnyClock(ContinuousClock()), firstPause: Duration = .milliseconds(10), attempts: Int = 3
    ) -> PushQueue {
        let delivery = HTTPPushDelivery(
            vapid: VAPID(key: P256.Signing.PrivateKey(), subject: "mailto:test@example.org"),
            policy: AddressPolicy(ports: [service.port], allowsLoopback: true),
            // A bound, not a speed: the whole suite starting at once can hold a loopback answer back for seconds.
            timeout: .seconds(30)
        )
        return PushQueue(
            delivery: delivery, gone: { subscription in _ = try? await store.removePushSubscription(subscription.id, of: subscription.userID) }, capacity: capacity, concurrency: 2, attempts: attempts, firstPause: firstPause,
            timer: timer, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, outcomes: outcomes.record
        )
    }

    /// Waits until something sleeps on `clock` (a retry waiting for its pause).
    static func sleeping(on clock: TestClock<Duration>) async -> Bool {
        await eventually {
            do { try await clock.checkSuspension(); return false } catch { return true }
        }
    }

    @Test func aPushTheServiceIsTooBusyForIsTriedAgainAfterPausesThatGrowThenGivenUp() async throws {
        let answered = Atomic(0)
        let service = try ScriptedServer { path, _ in
            let count = answered.add(1, ordering: .relaxed).newValue
            if path == "/busy" { return .answer(status: "500 Internal Server Error") }
            if path == "/refused" { return .answer(status: "400 Bad Request") }
            return count == 1 ? .answer(status: "503 Service Unavailable", headers: ["Retry-After: 0"])
                : count == 2 ? .answer(status: "429 Too Many Requests") : .answer(status: "201 Created")
        }
        defer { service.stop() }
        let outcomes = Outcomes()
        let clock = TestClock<Duration>()
        let queue = Self.queue(service, outcomes: outcomes, timer: AnyClock(clock), firstPause: .seconds(2))
        let running = Task { await queue.run() }
        defer { running.cancel() }

        // 503 (its Retry-After shorter than the pause): tried again two seconds later by the queue's clock, not sooner.
        #expect(queue.enqueue(PushQueue.Job(payload: Array("{}".utf8), subscription: Self.subscription(service.url("/retried")))))
        #expect(await Self.sleeping(on: clock), "the retry waits for its pause")
        #expect(service.received.count == 1)
        await clock.advance(by: .milliseconds(1_999))
        #expect(service.received.count == 1 && outcomes.all.isEmpty, "the pause is not over")
        await clock.advance(by: .milliseconds(1))
        #expect(await eventually { service.received.count == 2 }, "429")
        // The pause grows fourfold: eight seconds, then taken.
        #expect(await Self.sleeping(on: clock))
        await clock.advance(by: .milliseconds(7_999))
        #expect(service.received.count == 2)
        await clock.advance(by: .milliseconds(1))
        #expect(try await outcomes.wait(for: 1) == ["sent"], "503, then 429, then taken")
        #expect(service.received.count == 3)

        // Three 500s: given up after its pauses; a 400 is not tried again.
        queue.enqueue(PushQueue.Job(payload: Array("{}".utf8), subscription: Self.subscription(service.url("/busy"))))
        for pause in [Duration.seconds(2), .seconds(8)] {
            #expect(await Self.sleeping(on: clock))
            await clock.advance(by: pause)
        }
        #expect(try await outcomes.wait(for: 2).last == "dropped", "three 500s: given up")
        #expect(service.received.filter { $0.path == "/busy" }.count == 3)
        queue.enqueue(PushQueue.Job(payload: Array("{}".utf8), subscription: Self.subscription(service.url("/refused"))))
        #expect(try await outcomes.wait(for: 3).last == "failed", "400: not tried again")
        await queue.settled()
        #expect(service.received.filter { $0.path == "/refused" }.count == 1)
    }

    @Test func aFullQueueDropsWhatComesAndAGoneSubscriptionIsRemoved() async throws {
        let service = try ScriptedServer { _, _ in .answer(status: "410 Gone") }
        defer { service.stop() }
        let outcomes = Outcomes()
        let chats = InMemoryChatStore()
        let store = InMemoryPushStore(chats: chats)
        let stored = try await store.addPushSubscription(Self.subscription(service.url("/gone")))
        // Attempts enough for a suite that holds loopback answers back for a while (see `wait(for:)`): the 410 is what
        // this test is about, not the retries.
        let queue = Self.queue(service, outcomes: outcomes, capacity: 1, store: store, attempts: 6)
        #expect(queue.enqueue(PushQueue.Job(payload: [], subscription: stored)))
        #expect(!queue.enqueue(PushQueue.Job(payload: [], subscription: stored)), "full: a push never waits for room")
        #expect(outcomes.all == ["dropped"])
        let running = Task { await queue.run() }
        defer { running.cancel() }
        #expect(try await outcomes.wait(for: 2) == ["dropped", "gone"])
        #expect(try await store.pushSubscriptions(of: UserID(1)).isEmpty)
    }
}
