import Clocks
import Foundation
import HTTPTestSupport
import ParlorDomain
import Testing
@testable import parlor

/// "Is typing" through the real server: what a member's report shows on the others' pages, when it goes, and
/// what is refused.
@Suite struct TypingTests {
    @Test func aMemberTypingIsShownToTheOthersUntilTheySendOrStopAndAStartComesAtMostEveryThreeSeconds() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = String(chat.split(separator: "/").last!)
            let page = try await ben.get(chat).text
            #expect(page.contains("<div class=\"typing-line\" aria-live=\"polite\" aria-atomic=\"true\"><p class=\"typing\" id=\"typing-\(id)\"></p>"))
            #expect(page.contains("data-typing-url=\"/rooms/\(id)/typing\""))
            let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
            _ = try await stream.read(until: "target=\"messages-\(id)\"")
            try await ana.get(chat)

            #expect(try await ana.post("/rooms/\(id)/typing", [("state", "start")]).status == 204)
            let shown = try await stream.read(until: "is typing…")
            #expect(shown.contains("target=\"typing-\(id)\"") && shown.hasSuffix("Ana Lima is typing…"))
            #expect(try await ana.post("/rooms/\(id)/typing", [("state", "start")]).status == 429, "a second start within three seconds")
            // Sending ends it at once.
            #expect(try await ana.say("Here it is", in: chat).status == 303)
            let empty = "<p class=\"typing\" id=\"typing-\(id)\"></p>"
            _ = try await stream.read(until: empty)

            // "Stop" hides it at once, and does not let the next start through sooner (a start alone, and its
            // end five seconds later: ``aStartAloneShowsForFiveSecondsOfParlorsClock``).
            #expect(try await ana.post("/rooms/\(id)/typing", [("state", "start")]).status == 204, "the message sent started the clock anew")
            _ = try await stream.read(until: "Ana Lima is typing…")
            #expect(try await ana.post("/rooms/\(id)/typing", [("state", "stop")]).status == 204)
            _ = try await stream.read(until: empty)
            #expect(try await ana.post("/rooms/\(id)/typing", [("state", "start")]).status == 429, "a stop does not reset the start's clock")
            stream.close()

            // Not a member, a chat that does not exist, a state that is not one: refused (asked by Ben, whose budget of
            // reports Ana's have not spent).
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            try await chloe.get("/chats")
            #expect(try await chloe.post("/rooms/\(id)/typing", [("state", "start")]).status == 404)
            #expect(try await ben.post("/rooms/999999/typing", [("state", "start")]).status == 404)
            #expect(try await ben.post("/rooms/\(id)/typing", [("state", "maybe")]).status == 400)
            #expect(try await ben.post("/rooms/\(id)/typing", [("state", "start")], csrf: "forged").status == 403)
        }
    }

    @Test func aStartAloneShowsForFiveSecondsOfParlorsClock() async throws {
        let clock = TestClock<Duration>()
        try await RunningParlor.with(timer: AnyClock(clock)) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = String(chat.split(separator: "/").last!)
            let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
            _ = try await stream.read(until: "target=\"messages-\(id)\"")
            try await ana.get(chat)
            #expect(try await ana.post("/rooms/\(id)/typing", [("state", "start")]).status == 204)
            _ = try await stream.read(until: "Ana Lima is typing…")

            // Four and a half seconds on: still shown (a page of the chat opening now is told).
            await clock.advance(by: .milliseconds(4_500))
            let (late, _) = try await ben.openEvents("/events?chat=\(id)")
            _ = try await late.read(until: "Ana Lima is typing…")
            late.close()
            // Then gone as the five seconds end: the sweep looks twice a second.
            let empty = "<p class=\"typing\" id=\"typing-\(id)\"></p>"
            let more = try await clock.advance(by: .milliseconds(100), until: { try stream.hasReceived(empty) })
            let gone = try #require(more, "the line never went") + .milliseconds(4_500)
            #expect(gone >= Typing.shownFor && gone <= Typing.shownFor + .seconds(1), "gone after \(gone) of Parlor's clock")
            stream.close()
        }
    }

    @Test func aStopBeforeEachStartLetsNoFloodThroughAndEveryOrderOfReportsIsBounded() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = String(chat.split(separator: "/").last!)
            let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
            _ = try await stream.read(until: "target=\"messages-\(id)\"")
            try await ana.get(chat)

            let started = ContinuousClock.now
            var accepted = 0
            for _ in 0..<100 {
                for state in ["start", "stop"] where try await ana.post("/rooms/\(id)/typing", [("state", state)]).status == 204 {
                    accepted += 1
                }
            }
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            // A burst of four, then two a second: what the time taken allows, and far from the 200 sent.
            let allowed = 4 + Int((seconds * 2).rounded(.up))
            #expect(accepted >= 2 && accepted <= allowed, "\(accepted) of 200 accepted in \(seconds) s")
            // Everything shown on Ben's page came before the message that follows (one lane per chat, in order).
            #expect(try await ana.say("After the flood", in: chat).status == 303)
            let seen = try await stream.read(until: "After the flood")
            let typingUpdates = seen.components(separatedBy: "target=\"typing-\(id)\"").count - 1
            #expect(typingUpdates <= allowed + 1, "\(typingUpdates) typing updates reached Ben's page")
            stream.close()
        }
    }

    @Test func aPersonsPagesReportTheirPresenceAtABoundedRate() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            try await ana.get("/chats")
            // Reports as fast as one client sends them, until the first refusal (at most 2,000 of them, however slow the
            // machine): what was accepted by then is what the time taken allows.
            let started = ContinuousClock.now
            var accepted = 0
            var refused: TestResponse?
            for index in 0..<2_000 where refused == nil {
                let response = try await ana.post("/presence", [("page", "page\(index % 3)"), ("visible", index % 2 == 0 ? "1" : "0")])
                if response.status == 204 { accepted += 1 } else if response.status == 429 { refused = response }
            }
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            #expect(accepted >= 10 && accepted <= 10 + Int((seconds * 4).rounded(.up)), "\(accepted) accepted in \(seconds) s")
            let answer = try #require(refused)
            #expect(Int(answer.header("Retry-After") ?? "") ?? 0 >= 1)
        }
    }

    @Test func aRoomOfMoreThanAHundredMembersShowsNobodyTyping() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            let general = try await ana.chat(named: "General")
            let id = String(general.split(separator: "/").last!)
            #expect(try await ana.get(general).text.contains("data-typing-url"), "a small room shows who types")
            for index in 0..<Typing.memberLimit {
                let joined = await parlor.app.events.send(UserEvent.signingUp(NewUser(handle: "member\(index)", displayName: "Member \(index)")))
                guard case .signedUp = joined else { throw ClientError(description: "member \(index) not signed up: \(joined)") }
            }
            let page = try await ana.get(general).text
            #expect(!page.contains("data-typing-url") && !page.contains("typing-line"))
            let refused = try await ana.post("/rooms/\(id)/typing", [("state", "start")])
            #expect(refused.status == 422 && refused.text.contains("at most 100 members"))
        }
    }
}
