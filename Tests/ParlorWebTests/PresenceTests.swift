import Clocks
import Foundation
import HTTPTestSupport
import ParlorDomain
import Synchronization
import Testing
@testable import parlor

/// Presence through the real server: what Ana's page is told of Ben as his pages open, hide, idle and close, and
/// when he chooses to appear offline.
@Suite struct PresenceTests {
    /// Counts the presence reports the router publishes.
    final class Reports: EventObserver {
        let count = Atomic(0)
        func observe(_ event: DomainEvent, router: any EventSink) {
            if case .presence(.presenceChanged) = event { count.add(1, ordering: .relaxed) }
        }
    }

    /// The presence reports the router publishes, each with when it went by a test's clock.
    final class TimedReports: EventObserver {
        let clock: TestClock<Duration>
        let times = Mutex<[TestClock<Duration>.Instant]>([])
        init(clock: TestClock<Duration>) { self.clock = clock }
        func observe(_ event: DomainEvent, router: any EventSink) {
            if case .presence(.presenceChanged) = event { times.withLock { $0.append(clock.now) } }
        }
        var count: Int { times.withLock { $0.count } }
        /// The time between the last report and the one before it.
        var lastGap: Duration? {
            times.withLock { $0.count >= 2 ? $0[$0.count - 2].duration(to: $0[$0.count - 1]) : nil }
        }
    }

    static func dot(_ user: UserID, _ state: String, _ label: String) -> String {
        "<parlor-presence data-user=\"\(user)\" data-state=\"\(state)\" data-label=\"\(label)\"></parlor-presence>"
    }

    @Test func aPersonsDotFollowsTheirPagesAndTheirChoice() async throws {
        try await RunningParlor.with(
            configure: { $0.presenceOfflineAfter = .seconds(1) }, configureServer: { $0.heartbeatInterval = .milliseconds(300) }
        ) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let benID = try #require(try await parlor.store.user(handle: "ben")?.id)
            // Ana's list shows Ben's dot (hidden until the script shows it); so does a room's member list.
            let list = try await ana.get("/chats").text
            #expect(list.contains("<span class=\"presence-dot\" data-presence-of=\"\(benID)\" data-state=\"offline\" hidden></span>"))
            let room = try #require(try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")]).header("Location"))
            #expect(try await ana.get(room + "/members").text.contains("data-presence-of=\"\(benID)\""))

            let (watching, _) = try await ana.openEvents("/events?watch=\(benID),abc,-4")
            _ = try await watching.read(until: "action=\"badge\"")
            try await ben.get(chat)
            let (page, _) = try await ben.openEvents("/events?page=ben-1&visible=1")
            _ = try await watching.read(until: Self.dot(benID, "active", "Ben Okafor is active"))
            // Hidden: away. In front again but idle: still away. Used: active.
            #expect(try await ben.post("/presence", [("page", "ben-1"), ("visible", "0")]).status == 204)
            _ = try await watching.read(until: Self.dot(benID, "away", "Ben Okafor is away"))
            #expect(try await ben.post("/presence", [("page", "ben-1"), ("visible", "1"), ("idle", "1")]).status == 204)
            #expect(try await ben.post("/presence", [("page", "ben-1"), ("visible", "1"), ("idle", "0")]).status == 204)
            let back = try await watching.read(until: Self.dot(benID, "active", "Ben Okafor is active"))
            #expect(!back.contains("data-state=\"away\""), "idle on a visible page is away; nothing new was sent for it")

            // He chooses to appear offline: offline at once, though his page is in front of him; and back.
            try await ben.get("/settings")
            #expect(try await ben.post("/settings/notifications", [("appearOffline", "1")]).status == 303)
            _ = try await watching.read(until: Self.dot(benID, "offline", "Ben Okafor is offline"))
            #expect(try await ben.post("/settings/notifications", []).status == 303)
            _ = try await watching.read(until: Self.dot(benID, "active", "Ben Okafor is active"))

            // His last page closes: away at once (a reload is no departure), offline after the grace (1 s here; how
            // long, by Parlor's clock: ``theGraceAndThePaceOfPresenceGoByParlorsClock``).
            page.close()
            _ = try await watching.read(until: Self.dot(benID, "away", "Ben Okafor is away"))
            _ = try await watching.read(until: Self.dot(benID, "offline", "Ben Okafor is offline"))

            // A bad report is refused.
            #expect(try await ben.post("/presence", [("page", "ben-1"), ("visible", "1"), ("idle", "maybe")]).status == 400)
            watching.close()
        }
    }

    @Test func theGraceAndThePaceOfPresenceGoByParlorsClock() async throws {
        let clock = TestClock<Duration>()
        // The server's heartbeat (its own, real time) notices a closed stream soon.
        try await RunningParlor.with(configureServer: { $0.heartbeatInterval = .milliseconds(300) }, timer: AnyClock(clock)) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let benID = try #require(try await parlor.store.user(handle: "ben")?.id)
            let reports = TimedReports(clock: clock)
            parlor.app.events.addObserver(reports)
            let (watching, _) = try await ana.openEvents("/events?watch=\(benID)")
            _ = try await watching.read(until: "action=\"badge\"")
            try await ben.get(chat)
            let (page, _) = try await ben.openEvents("/events?page=ben-1&visible=1")
            let active = Self.dot(benID, "active", "Ben Okafor is active")
            #expect(try await clock.advance(by: .milliseconds(250), until: { try watching.hasReceived(active) }) != nil)
            await parlor.app.presence.settled()
            let before = reports.count

            // Flipped out of view and back eight times while Parlor's clock stands still (within the pages' budget of
            // reports): nothing more goes out within the second of the last report; once it ends, one report, of the
            // state at its end (away).
            for index in 0..<8 {
                #expect(try await ben.post("/presence", [("page", "ben-1"), ("visible", index.isMultiple(of: 2) ? "0" : "1")]).status == 204)
            }
            #expect(try await ben.post("/presence", [("page", "ben-1"), ("visible", "0")]).status == 204)
            await parlor.app.presence.settled()
            #expect(reports.count == before, "within the second")
            let away = Self.dot(benID, "away", "Ben Okafor is away")
            #expect(try await clock.advance(by: .milliseconds(250), until: { try watching.hasReceived(away) }) != nil)
            let gap = try #require(reports.lastGap)
            #expect(gap >= .seconds(1) && reports.count == before + 1, "one report, \(gap) after the one before")

            // His last page closes: away still, and offline a minute later (the grace), by Parlor's clock.
            page.close()
            #expect(await clock.advance(by: .milliseconds(250), until: { reports.count == before + 2 }) != nil)
            let offline = Self.dot(benID, "offline", "Ben Okafor is offline")
            let grace = try #require(try await clock.advance(by: .milliseconds(500), until: { try watching.hasReceived(offline) }))
            #expect(grace >= Presence.offlineAfter - .seconds(1) && grace <= Presence.offlineAfter + .seconds(2), "offline \(grace) after the page closed")
            watching.close()
        }
    }
}
