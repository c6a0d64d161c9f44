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

            // His last page closes: away at once (a reload is no departure), offline after the grace (1 s here).
            page.close()
            let closed = ContinuousClock.now
            _ = try await watching.read(until: Self.dot(benID, "away", "Ben Okafor is away"))
            _ = try await watching.read(until: Self.dot(benID, "offline", "Ben Okafor is offline"))
            let offlineAfter = ContinuousClock.now - closed
            #expect(offlineAfter >= .seconds(1) && offlineAfter < .seconds(5), "offline \(offlineAfter) after the page closed")

            // A page flipped in and out of view twenty times in a moment: at most one report a second goes out.
            let reports = Reports()
            parlor.app.events.addObserver(reports)
            let (flipping, _) = try await ben.openEvents("/events?page=ben-2&visible=1")
            _ = try await watching.read(until: Self.dot(benID, "active", "Ben Okafor is active"))
            let flipped = ContinuousClock.now
            for index in 0..<20 { _ = try await ben.post("/presence", [("page", "ben-2"), ("visible", index.isMultiple(of: 2) ? "0" : "1")]) }
            try await Task.sleep(for: .milliseconds(1_600))
            let seconds = Double((ContinuousClock.now - flipped).components.seconds) + 1
            #expect(reports.count.load(ordering: .relaxed) <= Int(seconds) + 1, "\(reports.count.load(ordering: .relaxed)) reports in \(seconds) s")
            flipping.close()

            // A bad report is refused.
            #expect(try await ben.post("/presence", [("page", "ben-1"), ("visible", "1"), ("idle", "maybe")]).status == 400)
            watching.close()
        }
    }
}
