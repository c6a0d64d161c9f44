import BoundedWork
import Dispatch
import Foundation
import HTTPTestSupport
import Testing
@testable import ParlorWeb

/// What an attacker tried: control characters in stored text, streams without end, sign-in bursts.
/// Each is refused with a clear answer and changes nothing.
@Suite struct HardeningTests {
    static let controlMessage = "That text contains an invisible control character"
    static let hostile = ["\0zanything", "Hi\0zthere", "zbell\u{07}", "zesc\u{1B}[2J", "\u{1F}zunit", "zvertical\u{0B}tab"]

    @Test func aMessageWithANulOrAControlCharacterIsRefusedAndTheTextKept() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            for (index, text) in Self.hostile.enumerated() {
                try await ana.get(chat)
                let refused = try await ana.post(chat + "/messages", [("body", text), ("token", "nul-\(index)")])
                #expect(refused.status == 422, "\(text.debugDescription)")
                #expect(refused.text.contains(Self.controlMessage), "\(text.debugDescription)")
                #expect(refused.text.contains("name=\"body\""), "the composer is shown again")
            }
            // Tab, line feed and carriage return are text.
            #expect(try await ana.say("one\ttwo\r\nthree", in: chat).status == 303)
            let page = try await ben.get(chat).text
            #expect(page.contains("one\ttwo"))
            for word in ["zanything", "zthere", "zbell", "zesc", "zunit", "zvertical"] { #expect(!page.contains(word), "\(word)") }
        }
    }

    @Test func anEditWithANulIsRefusedAndTheMessageStaysAsItWas() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let sent = try await ana.say("See you at 12", in: chat)
            let id = try #require(sent.header("Location")?.split(separator: "-").last.map(String.init))
            try await ana.get(chat + "?edit=\(id)")
            for text in Self.hostile {
                let refused = try await ana.post(chat + "/messages/\(id)", [("body", text)])
                #expect(refused.status == 422, "\(text.debugDescription)")
                #expect(refused.text.contains(Self.controlMessage))
            }
            let page = try await ben.get(chat).text
            #expect(page.contains("See you at 12<"))
            #expect(!page.contains("Edited"))
        }
    }

    @Test func aDisplayNameWithANulIsRefusedAtSignUpAndInSettings() async throws {
        try await RunningParlor.with { parlor in
            let mallory = Visitor(port: parlor.port)
            let refused = try await mallory.signUp("mallory", name: "\0Alice")
            #expect(refused.status == 422)
            #expect(refused.text.contains(Self.controlMessage))
            #expect(refused.text.contains("data-error-field=\"displayName\""), "the error is where the name was typed")
            // No account was made: the handle is still free.
            #expect(try await Visitor(port: parlor.port).signUp("mallory", name: "Mallory").status == 303)

            let ana = Visitor(port: parlor.port)
            try await ana.signUp("ana", name: "Ana Lima")
            for name in ["\0Alice", "Ana\u{1B}[31m", "Ana\u{08}"] {
                try await ana.get("/settings")
                let unchanged = try await ana.post("/settings", [("displayName", name), ("timeZone", "UTC"), ("locale", "en_US")])
                #expect(unchanged.status == 422, "\(name.debugDescription)")
                #expect(unchanged.text.contains(Self.controlMessage))
            }
            #expect(try await ana.get("/settings").text.contains("value=\"Ana Lima\""))
            // A time zone or a language with a NUL is not one from the lists.
            try await ana.get("/settings")
            let zone = try await ana.post("/settings", [("displayName", "Ana"), ("timeZone", "UTC\0junk"), ("locale", "en_US")])
            #expect(zone.status == 422)
        }
    }

    @Test func anAccountPastItsStreamLimitLosesItsOldestStreamWithARetry() async throws {
        try await RunningParlor.with(configure: { $0.eventStreamsPerAccount = 3; $0.evictedStreamRetry = .seconds(7) }) { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            var streams: [RawClient] = []
            for _ in 0..<3 {
                let (stream, head) = try await ana.openEvents("/events")
                #expect(head.status == 200)
                _ = try await stream.read(until: "action=\"badge\"")
                streams.append(stream)
            }
            // Another account's streams are its own.
            let (bens, _) = try await ben.openEvents("/events")
            _ = try await bens.read(until: "action=\"badge\"")

            let (fourth, head) = try await ana.openEvents("/events")
            #expect(head.status == 200)
            _ = try await fourth.read(until: "action=\"badge\"")
            let goodbye = try await streams[0].readToEnd()
            #expect(goodbye.contains("retry: 7000\n\n"), "the oldest page is told when to come back")
            #expect(streams[0].streamEnded)

            // The other three are still live: a message reaches them.
            let chat = try await ben.chat(named: "Ana Lima")
            try await ben.say("Still there?", in: chat)
            for stream in [streams[1], streams[2], fourth, bens] {
                _ = try await stream.read(until: "Still there?")
            }
        }
    }

    @Test func aBurstOfSignInsPastTheHashingQueueGets503WithRetryAfter() async throws {
        try await RunningParlor.with(configure: {
            // A hash long enough (about half a second) that all the requests arrive while the first runs,
            // however busy the machine is.
            $0.passwordCost = .moderate
            $0.passwordThreads = 1
            $0.passwordWaitingLimit = 1
        }) { parlor in
            let visitors = (0..<8).map { _ in Visitor(port: parlor.port) }
            for visitor in visitors { try await visitor.get("/signin") }
            // All eight are sent before any answer is read: they wait for one hashing thread together.
            let pending = try visitors.map { try $0.startPost("/signin", [("handle", "nobody"), ("password", "a wrong password")]) }
            var responses: [TestResponse] = []
            for client in pending { responses.append(try await client.readResponse()) }
            let busy = responses.filter { $0.status == 503 }
            #expect(!busy.isEmpty, "\(responses.map(\.status)) \(responses.map(\.text).first ?? "")")
            #expect(responses.contains { $0.status == 422 }, "the first ones were checked")
            for response in busy {
                #expect(response.header("Retry-After") == "5")
                #expect(response.text.contains("busy signing people in"))
                #expect(response.text.contains("name=\"password\""), "the form is shown again")
            }
        }
    }

    @Test func hashesPastTheWaitingLimitAreRefusedAtOnceAndWaitingOnesHoldNoThread() async throws {
        let queue = BoundedWorkQueue(label: "test", concurrency: 1, waitingLimit: 1)
        let gate = DispatchSemaphore(value: 0)
        async let first = queue.run { () -> Int in
            gate.wait()
            return 1
        }
        #expect(await eventually { queue.load.running == 1 })
        async let second = queue.run { 2 }
        #expect(await eventually { queue.load.waiting == 1 })
        // The one running thread is blocked, one hash waits as a closure: a third is refused without waiting.
        #expect(await queue.run { 3 } == nil)
        #expect(queue.load.running == 1)
        gate.signal()
        #expect(await first == 1)
        #expect(await second == 2)
        #expect(await eventually { queue.load.running == 0 && queue.load.waiting == 0 })
        #expect(await queue.run { 4 } == 4, "the queue takes work again")
    }
}
