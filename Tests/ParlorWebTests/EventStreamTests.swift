import Foundation
import HTTPTestSupport
import Testing

/// The live-update protocol: what a page's event stream carries, and what a reconnecting page gets.
@Suite struct LiveUpdateTests {
    @Test func aPageFirstGetsWhatItShowsThenEachChangeInEnvelopesWithIds() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = String(chat.split(separator: "/").last!)
            let (stream, head) = try await ben.openEvents("/events?chat=\(id)")
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream")
            #expect(head.header("Cache-Control") == "no-store, no-transform")
            let first = try await stream.read(until: "target=\"messages-\(id)\"")
            #expect(first.contains("action=\"replace\" target=\"chat-list\""))
            #expect(first.contains("action=\"badge\""))
            #expect(first.contains("\nid: "))

            try await ana.say("Are you there?", in: chat)
            let arrival = try await stream.read(until: "Are you there?")
            #expect(arrival.contains("action=\"append\"") || arrival.contains("action=\"replace\""))
            // Ben has the chat open: no toast for it.
            let rest = try await stream.read(until: "chat-item-\(id)")
            #expect(!(arrival + rest).contains("action=\"toast\""))
        }
    }

    @Test func pagesShowingTheSameThingShareOneEncodedUpdateWithOneId() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = String(chat.split(separator: "/").last!)
            var pages: [RawClient] = []
            for _ in 0..<3 {
                let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
                _ = try await stream.read(until: "target=\"messages-\(id)\"")
                pages.append(stream)
            }
            try await ana.say("One for all", in: chat)
            var ids: Set<String> = []
            for page in pages {
                let arrival = try await page.read(until: "One for all")
                ids.insert(try #require(arrival.components(separatedBy: "\nid: ").last?.split(separator: "\n").first.map(String.init)))
            }
            #expect(ids.count == 1, "the same update reached three pages as one event: \(ids)")
        }
    }

    @Test func aMessageInAChatThatIsNotOpenComesWithAToastAndABadge() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let (stream, _) = try await ben.openEvents("/events")
            _ = try await stream.read(until: "action=\"badge\"")
            try await ana.say("Ping <b>bold</b>", in: chat)
            let updates = try await stream.read(until: "action=\"toast\"")
            #expect(updates.contains("data-title=\"(1) Parlor\""))
            let toast = try await stream.read(until: "</parlor-stream>")
            #expect(toast.contains("Ana Lima"))
            #expect(toast.contains("Ping &lt;b&gt;bold&lt;/b&gt;"))
            #expect(toast.contains("href=\"\(chat)\""))
        }
    }

    @Test func aNewDisplayNameReachesTheContactsOpenPages() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            let (stream, _) = try await ben.openEvents("/events")
            _ = try await stream.read(until: "action=\"badge\"")
            try await ana.get("/settings")
            #expect(try await ana.post("/settings", [("displayName", "Ana <Renamed>"), ("timeZone", "UTC"), ("locale", "en_US")]).status == 303)
            let update = try await stream.read(until: "Ana &lt;Renamed&gt;")
            #expect(update.contains("action=\"replace\" target=\"chat-list\""))
        }
    }

    @Test func aReconnectingPageGetsTheWholeStateAgainEvenAfterARestart() async throws {
        let parlor = try await RunningParlor()
        let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
        let id = String(chat.split(separator: "/").last!)
        try await ana.say("before the restart", in: chat)
        let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
        let seen = try await stream.read(until: "before the restart")
        let lastID = try #require(seen.components(separatedBy: "\nid: ").last?.split(separator: "\n").first.map(String.init))
        await parlor.stop()

        // Same file, new process state: messages sent meanwhile must reach the page when it comes back.
        let restarted = try await RunningParlor(folder: parlor.folder)
        let ana2 = Visitor(port: restarted.port), ben2 = Visitor(port: restarted.port)
        ana2.cookies = ana.cookies
        ben2.cookies = ben.cookies
        let sent = try await ana2.say("while you were away", in: chat)
        #expect(sent.status == 303, "the session survived the restart")
        let (again, head) = try await ben2.openEvents("/events?chat=\(id)", lastEventID: lastID)
        #expect(head.status == 200)
        _ = try await again.read(until: "action=\"replace\" target=\"chat-list\"")
        let caughtUp = try await again.read(until: "target=\"messages-\(id)\"") + again.read(until: "</parlor-stream>")
        #expect(caughtUp.contains("while you were away"))
        #expect(caughtUp.contains("action=\"replace\" target=\"messages-\(id)\""))
        #expect(caughtUp.contains("before the restart"), "the region is replaced whole: nothing doubled, nothing missing")
        await restarted.finish()
    }

    @Test func aBusyChatsRowOnAPageShowingAnotherMovesOnceAndThenShowsTheNewest() async throws {
        try await RunningParlor.with(configure: { $0.listPace = 4 }) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let general = try await ben.chat(named: "General")
            let (stream, _) = try await ben.openEvents("/events?chat=\(general.split(separator: "/").last!)")
            _ = try await stream.read(until: "action=\"badge\"")
            let started = ContinuousClock.now
            for word in ["alpha", "bravo", "charlie", "delta"] { try await ana.say(word, in: chat) }
            // The chat's row on Ben's page of General: the first change at once, then the newest at the end of the
            // pace; the ones between are never drawn (each message still has its toast). Four sends within one
            // pace draw "alpha" and "delta" alone; a starved machine whose sends span more than a pace draws one more
            // row a pace, never each message.
            let updates = try await stream.read(until: "chat-list-preview\" dir=\"auto\">delta")
            let previews = updates.matches(of: /chat-list-preview" dir="auto">([a-z]+)/).map { String($0.1) }
            let paces = Int((ContinuousClock.now - started) / .seconds(4))
            #expect(previews.first == "alpha" && previews.last == "delta", "\(previews)")
            #expect(previews == previews.sorted() && Set(previews).count == previews.count, "in order, once each: \(previews)")
            #expect(previews.count <= 2 + paces, "\(previews) in \(paces) paces")
        }
    }
}
