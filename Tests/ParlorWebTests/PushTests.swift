import Clocks
import Crypto
import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorNotifications
import ParlorPush
import ParlorWeb
import Testing
@testable import parlor

/// Web Push through the real server and a push service on 127.0.0.1 that keeps what Parlor sends: each push is
/// decrypted with the browser's private key, and its VAPID token checked (signature, audience, expiry).
@Suite struct PushTests {
    /// A browser's push keys, as `PushManager.subscribe()` makes them.
    struct TestBrowser {
        let key = P256.KeyAgreement.PrivateKey()
        let auth = WebPushEncryption.randomBytes(16)

        func fields(_ endpoint: String) -> [(String, String)] {
            [("endpoint", endpoint), ("p256dh", Base64URL.encode(key.publicKey.x963Representation)), ("auth", Base64URL.encode(auth))]
        }
    }

    /// A push the service received: its headers and what it says, decrypted.
    struct ReceivedPush {
        let path: String
        let headers: [String: String]
        let payload: PushPayload
    }

    static let chrome = "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"

    /// Returns once every message sent so far has been through whom-to-push and its pushes sent or given up: what the
    /// service has then is all it will have of them.
    static func settled(_ parlor: RunningParlor) async {
        await parlor.app.pushNotifier.settled()
        await parlor.app.pushQueue.settled()
    }

    /// The pushes to `browser`, once the service has had `count` in all (within 10 s), decrypted; those to `path`
    /// only, when given.
    static func pushes(_ service: ScriptedServer, count: Int, for browser: TestBrowser, path: String? = nil) async throws -> [ReceivedPush] {
        let deadline = ContinuousClock.now + .seconds(10)
        while service.receivedBodies.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let bodies = service.receivedBodies
        let requests = service.received
        try #require(bodies.count >= count, "\(count) pushes arrive (\(bodies.count) did)")
        return try zip(requests, bodies).filter { path == nil || $0.0.path == path }.map { request, body in
            let plain = try WebPushEncryption.decrypt(body, privateKey: browser.key, authSecret: browser.auth)
            return ReceivedPush(path: request.path, headers: request.headers, payload: try JSONDecoder().decode(PushPayload.self, from: Data(plain)))
        }
    }

    /// Checks a VAPID `Authorization` header: ES256 over the token by the key it names, which is Parlor's, for the
    /// push service's origin, expiring within a day.
    static func checkVAPID(_ header: String?, key: String, audience: String) throws {
        let header = try #require(header)
        let parts = header.dropFirst("vapid ".count).components(separatedBy: ", ")
        let token = try #require(parts.first { $0.hasPrefix("t=") }?.dropFirst(2))
        let named = try #require(parts.first { $0.hasPrefix("k=") }?.dropFirst(2))
        #expect(header.hasPrefix("vapid "))
        #expect(String(named) == key, "signed with the key browsers subscribe with")
        let pieces = token.split(separator: ".").map(String.init)
        try #require(pieces.count == 3)
        let keyBytes = try #require(Base64URL.decode(String(named)))
        let signatureBytes = try #require(Base64URL.decode(pieces[2]))
        let publicKey = try P256.Signing.PublicKey(x963Representation: keyBytes)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(publicKey.isValidSignature(signature, for: Array((pieces[0] + "." + pieces[1]).utf8)), "the signature holds")
        let claimBytes = try #require(Base64URL.decode(pieces[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any])
        #expect(claims["aud"] as? String == audience)
        let expiry = try #require(claims["exp"] as? Int)
        let now = Int(Date().timeIntervalSince1970)
        #expect(expiry > now && expiry <= now + 24 * 60 * 60, "expires within a day")
        #expect((claims["sub"] as? String)?.hasPrefix("mailto:") == true)
        let headBytes = try #require(Base64URL.decode(pieces[0]))
        let head = try #require(try JSONSerialization.jsonObject(with: Data(headBytes)) as? [String: String])
        #expect(head["alg"] == "ES256")
    }

    static func allowingLoopback(_ service: ScriptedServer) -> (inout WebConfiguration) -> Void {
        { configuration in
            configuration.pushAllowsLoopback = true
            configuration.pushPorts = [service.port]
        }
    }

    @Test func aMessageIsPushedEncryptedAndSignedOnlyWhileNoPageOfTheRecipientIsVisible() async throws {
        let service = try ScriptedServer { _, _ in .answer(status: "201 Created") }
        defer { service.stop() }
        try await RunningParlor.with(configure: Self.allowingLoopback(service)) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ben.get("/settings")
            let browser = TestBrowser()
            #expect(try await ben.post("/push/subscriptions", browser.fields(service.url("/push/ben")), headers: [Self.chrome]).status == 201)
            let settings = try await ben.get("/settings").text
            #expect(settings.contains("Chrome on Linux · added"), "the browser is listed in Settings")
            let key = try await ben.get("/push/key").text
            #expect(settings.contains(key), "with the key it subscribed with")

            #expect(try await ana.say("Lunch at *noon*? <b>now</b>", in: chat).status == 303)
            let first = try #require(try await Self.pushes(service, count: 1, for: browser).first)
            // Read as the chat list shows it: no formatting marks; the service worker shows text, never markup.
            let id = try #require(first.payload.url.components(separatedBy: "around=").last?.prefix { $0.isNumber })
            #expect(first.payload == PushPayload(
                title: "Ana Lima", body: "Lunch at noon? <b>now</b>", url: "\(chat)?around=\(id)#message-\(id)", tag: "chat-\(chat.split(separator: "/").last ?? "")"
            ))
            #expect(first.path == "/push/ben")
            #expect(first.headers["content-encoding"] == "aes128gcm")
            #expect(first.headers["urgency"] == "high", "a direct message")
            #expect(first.headers["ttl"] == String(HTTPPushDelivery.timeToLive))
            try Self.checkVAPID(first.headers["authorization"], key: key, audience: "http://127.0.0.1:\(service.port)")

            // A visible page of Ben's: the message shows there, nothing is pushed.
            let (stream, opened) = try await ben.openEvents("/events?page=ben-tab-1&visible=1")
            #expect(opened.status == 200)
            #expect(try await ana.say("Are you there?", in: chat).status == 303)
            await Self.settled(parlor)
            #expect(service.receivedBodies.count == 1, "not pushed while a page of Ben's is visible")
            // Hidden (another tab in front): pushed again.
            #expect(try await ben.post("/presence", [("page", "ben-tab-1"), ("visible", "0")]).status == 204)
            #expect(try await ana.say("Hello?", in: chat).status == 303)
            #expect(try await Self.pushes(service, count: 2, for: browser).last?.payload.body == "Hello?")
            // Visible again, then closed: pushed once the page is gone.
            #expect(try await ben.post("/presence", [("page", "ben-tab-1"), ("visible", "1")]).status == 204)
            #expect(try await ana.say("Still here?", in: chat).status == 303)
            await Self.settled(parlor)
            #expect(service.receivedBodies.count == 2)
            stream.close()
            let deadline = ContinuousClock.now + .seconds(5)
            var pushed = 2
            while pushed == 2, ContinuousClock.now < deadline {
                _ = try await ana.say("Knock knock \(ContinuousClock.now)", in: chat)
                try await Task.sleep(for: .milliseconds(300))
                pushed = service.receivedBodies.count
            }
            #expect(pushed > 2, "pushed once the page closed")

            // Ben's own messages are never pushed to him: Ana's next one, pushed after them, arrives alone (the
            // knocks may still be on their way; bodies are compared, not counts); a bad report is refused.
            _ = try await ben.say("My own words", in: chat)
            _ = try await ana.say("After Ben's own words", in: chat)
            var bodies: [String] = []
            let until = ContinuousClock.now + .seconds(30)
            while !bodies.contains("After Ben's own words"), ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(20))
                bodies = try await Self.pushes(service, count: 0, for: browser).map(\.payload.body)
            }
            #expect(bodies.contains("After Ben's own words") && !bodies.contains("My own words"))
            #expect(try await ben.post("/presence", [("page", "a b"), ("visible", "1")]).status == 400)
        }
    }

    @Test func everyLoopOfTheFrontStopsOnItsCancellationWithAPushWaitingForItsRetry() async throws {
        let service = try ScriptedServer { _, _ in .answer(status: "503 Service Unavailable") }
        defer { service.stop() }
        // Parlor's clock stands still: the push's retry waits for it, as the sweeps and the session checks do.
        let clock = TestClock<Duration>()
        try await RunningParlor.with(configure: Self.allowingLoopback(service), timer: AnyClock(clock)) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ben.get("/settings")
            #expect(try await ben.post("/push/subscriptions", TestBrowser().fields(service.url("/push/ben"))).status == 201)
            #expect(try await ana.say("Are you there?", in: chat).status == 303)
            #expect(await eventually { service.received.count == 1 }, "pushed once, answered 503")
            let (stream, _) = try await ana.openEvents("/events?chat=\(chat.split(separator: "/").last!)")
            _ = try await stream.read(until: "action=\"badge\"")
            // Every loop ends on its cancellation, waiting on no time: the clock never moves, so a loop that waited for
            // its pause or its interval would never end. The bound only catches a hang (quiet, it takes a few
            // milliseconds; at the suite's busiest start it took 1.3 s of scheduling).
            let took = await parlor.stopLoops()
            #expect(took < .seconds(10), "the loops took \(took) to stop")
            #expect(service.received.count == 1, "the retry was dropped with the queue, not sent")
            stream.close()
        }
    }

    @Test func roomsPushMentionsOnlyAndPrivateNotificationsSayNothingOfTheMessage() async throws {
        let service = try ScriptedServer { _, _ in .answer(status: "201 Created") }
        defer { service.stop() }
        try await RunningParlor.with(configure: Self.allowingLoopback(service)) { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            try await ben.get("/settings")
            let browser = TestBrowser()
            #expect(try await ben.post("/push/subscriptions", browser.fields(service.url("/push/ben"))).status == 201)
            let made = try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")])
            let room = try #require(made.header("Location"))
            #expect(try await ana.say("Budget numbers are in", in: room).status == 303)
            #expect(try await ana.say("@ben can you check them?", in: room).status == 303)
            let pushed = try await Self.pushes(service, count: 1, for: browser)
            await Self.settled(parlor)
            #expect(service.receivedBodies.count == 1, "a room followed for mentions: only the one that names Ben")
            #expect(pushed[0].payload.title == "Ana Lima in #Launch" && pushed[0].payload.body == "@ben can you check them?")

            // Private: the room only.
            #expect(try await ben.post("/settings/notifications", [("private", "1")]).status == 303)
            #expect(try await ben.get("/settings?push=saved").text.contains("Notification settings saved."))
            #expect(try await ana.say("@ben the numbers are secret", in: room).status == 303)
            let secret = try await Self.pushes(service, count: 2, for: browser)[1].payload
            #expect(secret.title == "Parlor" && secret.body == "New message in #Launch")

            // Muted: nothing, even a mention.
            let roomID = try #require(room.split(separator: "/").last)
            #expect(try await ben.post("/rooms/\(roomID)/follow", [("follow", "nothing")]).status == 303)
            #expect(try await ana.say("@ben muted?", in: room).status == 303)
            await Self.settled(parlor)
            #expect(service.receivedBodies.count == 2)
        }
    }

    @Test func aSubscriptionThePushServiceSaysIsGoneIsRemovedAndATestNotificationReachesEachBrowser() async throws {
        let service = try ScriptedServer { path, _ in path.hasPrefix("/gone") ? .answer(status: "410 Gone") : .answer(status: "201 Created") }
        defer { service.stop() }
        try await RunningParlor.with(configure: Self.allowingLoopback(service)) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ben.get("/settings")
            let kept = TestBrowser()
            #expect(try await ben.post("/push/subscriptions", kept.fields(service.url("/push/kept"))).status == 201)
            #expect(try await ben.post("/push/subscriptions", TestBrowser().fields(service.url("/gone/1"))).status == 201)
            let benID = try #require(try await parlor.store.user(handle: "ben")?.id)
            #expect(try await parlor.store.pushSubscriptions(of: benID).count == 2)
            #expect(try await ana.say("Hi", in: chat).status == 303)
            let deadline = ContinuousClock.now + .seconds(10)
            while try await parlor.store.pushSubscriptions(of: benID).count == 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await parlor.store.pushSubscriptions(of: benID).map(\.endpoint) == [service.url("/push/kept")], "410: removed")

            let tested = try await ben.post("/push/test", [])
            #expect(tested.status == 303 && tested.header("Location") == "/settings?push=tested-1#notifications")
            #expect(try await ben.get("/settings?push=tested-1").text.contains("A test notification is on its way to 1 browser."))
            let pushes = try await Self.pushes(service, count: 3, for: kept, path: "/push/kept")
            #expect(pushes.filter { $0.path == "/push/kept" }.map(\.payload.tag).contains("parlor-test"))

            // Removed from Settings (another person's id removes nothing).
            let id = try #require(try await parlor.store.pushSubscriptions(of: benID).first?.id)
            #expect(try await ana.post("/push/subscriptions/remove", [("subscription", String(id))]).status == 303)
            #expect(try await parlor.store.pushSubscriptions(of: benID).count == 1)
            #expect(try await ben.post("/push/subscriptions/remove", [("subscription", String(id))]).header("Location") == "/settings?push=removed#notifications")
            #expect(try await parlor.store.pushSubscriptions(of: benID).isEmpty)
            #expect(try await ben.get("/settings").text.contains("No browser gets notifications from Parlor yet."))
        }
    }

    @Test func subscriptionsParlorWouldNotSendToAreRefusedWithAReasonAndNothingIsStored() async throws {
        try await RunningParlor.with { parlor in
            let (_, ben, _) = try await ConversationTests.anaAndBen(parlor)
            try await ben.get("/settings")
            let browser = TestBrowser()
            let good = browser.fields("https://push.example.net/x")
            func with(endpoint: String? = nil, p256dh: String? = nil, auth: String? = nil) -> [(String, String)] {
                [("endpoint", endpoint ?? good[0].1), ("p256dh", p256dh ?? good[1].1), ("auth", auth ?? good[2].1)]
            }
            let offCurve = Base64URL.encode([0x04] + [UInt8](repeating: 7, count: 64))
            let cases: [([(String, String)], String)] = [
                (with(endpoint: "https://10.1.2.3/push"), "private or reserved network"),
                (with(endpoint: "https://192.168.0.10/push"), "private or reserved network"),
                (with(endpoint: "https://169.254.169.254/latest"), "private or reserved network"),
                (with(endpoint: "https://127.0.0.1/push"), "private or reserved network"),
                (with(endpoint: "http://127.0.0.1/push"), "not an https address"),
                (with(endpoint: "http://93.184.216.34/push"), "not an https address"),
                (with(endpoint: "https://93.184.216.34:8443/push"), "port 8443"),
                (with(endpoint: "ftp://push.example.net/x"), "not a web address"),
                (with(endpoint: "https://user:pass@93.184.216.34/x"), "not a web address"),
                (with(endpoint: "https://push.example.net/" + String(repeating: "a", count: 10 * 1024)), "longer than 2048"),
                (with(p256dh: "abc"), "keys for notifications are not valid"),
                (with(p256dh: offCurve), "keys for notifications are not valid"),
                (with(auth: Base64URL.encode([1, 2, 3])), "keys for notifications are not valid"),
                (with(auth: String(repeating: "A", count: 400)), "keys for notifications are not valid"),
                ([("endpoint", "https://push.example.net/x")], "sent no subscription"),
            ]
            for (fields, reason) in cases {
                let answer = try await ben.post("/push/subscriptions", fields)
                #expect(answer.status == 400, "\(fields[0].1.prefix(60)): \(answer.status)")
                #expect(answer.text.contains(reason), "\(fields[0].1.prefix(60)): \(answer.text)")
            }
            let benID = try #require(try await parlor.store.user(handle: "ben")?.id)
            #expect(try await parlor.store.pushSubscriptions(of: benID).isEmpty, "nothing stored")
            // Without the session's token: refused too.
            #expect(try await ben.post("/push/subscriptions", with(endpoint: "https://93.184.216.34/push"), csrf: "forged").status == 403)
            #expect(try await parlor.store.pushSubscriptions(of: benID).isEmpty)
        }
    }
}
