import Clocks
import Foundation
import HTTPTestSupport
import ParlorDomain
import Testing
@testable import parlor

/// Nothing but the router writes: every route that may change something is sent a request that changes it (as a
/// signed-in administrator, or as a bot), and the store, watching for writes outside a router command, must have
/// seen none. A new route that this list does not name fails the test until it is added here.
@Suite struct EveryChangeThroughTheRouterTests {
    /// Sends a route its request; answers the status.
    typealias Step = () async throws -> Int

    static func form(_ visitor: Visitor, _ path: String, _ fields: [(String, String)]) -> Step {
        { try await visitor.post(path, fields).status }
    }

    static func bot(_ parlor: RunningParlor, _ key: String, _ method: String, _ path: String, _ json: String) -> Step {
        { try await BotAPITests.call(parlor, method, path, key: key, json: json).status }
    }

    @Test func everyStateChangingRouteWritesThroughTheRouterOnly() async throws {
        // Pushes may go to a loopback port nothing listens on: the subscription is stored, no push arrives.
        try await RunningParlor.with(configure: { $0.pushAllowsLoopback = true; $0.pushPorts = [9] }) { parlor in
            let ana = parlor.visitor()
            #expect(try await ana.signUp("ana", name: "Ana Lima").status == 303)
            let ben = parlor.visitor()
            #expect(try await ben.signUp("ben").status == 303)
            try await ana.get("/rooms/new")
            let room = try #require(try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")]).header("Location"))
            let roomID = String(room.split(separator: "/").last!)
            #expect(try await ana.say("Hello, Ben", in: room).status == 303)
            let messageID = try await parlor.store.messages(in: ChatID(Int64(roomID)!), before: nil, limit: 5).messages.last!.id.rawValue
            let benID = try #require(try await parlor.store.user(handle: "ben")).id.rawValue
            let key = try await BotAPITests.makeBot(ana, handle: "deploy")
            let botID = try #require(try await parlor.store.user(handle: "deploy")).id.rawValue
            let api = "/api/rooms/\(roomID)"
            #expect(try await ana.post(room + "/members", [("members", "@deploy")]).status == 303)
            let joinLink = try await AdministrationTests.makeJoinLink(ana)
            try await ben.get(room)
            // The bot's own message, which its edit and delete change.
            let posted = BotAPITests.object(try await BotAPITests.call(parlor, "POST", "/api/rooms/\(roomID)/messages", key: key, json: #"{"text": "Starting"}"#))
            let botMessage = try #require((posted["message"] as? [String: Any])?["id"] as? Int)

            // What each route is sent, in an order that leaves what the later ones need (the session last of all).
            // Each answered without a server error. All but four change what they are for here: the three uploads are
            // sent no file and a preview that is not there is not removed (their refusals change nothing either).
            func form(_ visitor: Visitor, _ path: String, _ fields: [(String, String)] = []) -> Step { Self.form(visitor, path, fields) }
            func bot(_ method: String, _ path: String, _ json: String) -> Step { Self.bot(parlor, key, method, path, json) }
            let message = "\(room)/messages/\(messageID)"
            let steps: [(route: String, step: Step)] = [
                ("POST /signup", { try await parlor.visitor().signUp("chloe").status }),
                ("POST /join/{code}", { try await AdministrationTests.signUp(parlor.visitor(), through: joinLink, "dana").status }),
                ("POST /signin", { try await SessionsSupport.signIn("ben", on: parlor.port) }),
                ("POST /chats/new", form(ana, "/chats/new", [("handle", "ben")])),
                ("POST /rooms/new", form(ana, "/rooms/new", [("name", "Side"), ("kind", "open")])),
                ("POST /rooms/{id}/messages", { try await ana.say("Another word", in: room).status }),
                ("POST /rooms/{id}/messages/{message}", form(ana, message, [("body", "Hello again, Ben")])),
                ("POST /rooms/{id}/messages/{message}/reactions", form(ana, message + "/reactions", [("reaction", "👍")])),
                ("POST /rooms/{id}/messages/{message}/preview/remove", form(ana, message + "/preview/remove")),
                ("POST /rooms/{id}/read", form(ben, room + "/read", [("upTo", "\(messageID)")])),
                ("POST /rooms/{id}/typing", form(ana, room + "/typing", [("state", "start")])),
                ("POST /presence", form(ana, "/presence", [("page", "ana-1"), ("visible", "1"), ("idle", "0")])),
                ("POST /rooms/{id}/follow", form(ana, room + "/follow", [("follow", Involvement.mentions.rawValue)])),
                ("POST /rooms/{id}/settings", form(ana, room + "/settings", [("name", "Launch day"), ("topic", "Ship it")])),
                ("POST /rooms/{id}/feeds", form(ana, room + "/feeds", [("url", "https://example.org/feed.xml")])),
                ("POST /rooms/{id}/feeds/{feed}/retry", form(ana, room + "/feeds/1/retry")),
                ("POST /rooms/{id}/feeds/{feed}/delete", form(ana, room + "/feeds/1/delete")),
                ("POST /settings", form(ana, "/settings", [("displayName", "Ana L."), ("timeZone", "Europe/Lisbon"), ("locale", "en_US")])),
                ("POST /settings/avatar", form(ana, "/settings/avatar")),
                ("POST /settings/avatar/remove", form(ana, "/settings/avatar/remove")),
                ("POST /settings/notifications", form(ana, "/settings/notifications", [("appearOffline", "1"), ("private", "1")])),
                ("POST /push/subscriptions", form(ana, "/push/subscriptions", PushTests.TestBrowser().fields("http://127.0.0.1:9/send/1"))),
                ("POST /push/test", form(ana, "/push/test")),
                ("POST /push/subscriptions/remove", form(ana, "/push/subscriptions/remove", [("endpoint", "http://127.0.0.1:9/send/1")])),
                ("POST /admin/signup", form(ana, "/admin/signup", [("policy", "open")])),
                ("POST /admin/rooms", form(ana, "/admin/rooms", [("onlyAdministrators", "1")])),
                ("POST /admin/join-link", form(ana, "/admin/join-link", [("days", "3"), ("uses", "")])),
                ("POST /admin/people/{person}/role", form(ana, "/admin/people/\(benID)/role", [("role", "administrator")])),
                ("POST /admin/bots", form(ana, "/admin/bots", [("name", "Build Bot"), ("handle", "build"), ("webhook", "")])),
                ("POST /admin/bots/{person}/avatar", form(ana, "/admin/bots/\(botID)/avatar")),
                ("POST /api/rooms/{id}/messages", bot("POST", api + "/messages", #"{"text": "Deploying", "token": "run-1"}"#)),
                ("POST /api/rooms/{id}/photos", bot("POST", api + "/photos", "")),
                ("PATCH /api/rooms/{id}/messages/{message}", bot("PATCH", api + "/messages/\(botMessage)", #"{"text": "Deployed"}"#)),
                ("POST /api/rooms/{id}/messages/{message}/reactions", bot("POST", api + "/messages/\(messageID)/reactions", #"{"reaction": "🚀"}"#)),
                ("POST /api/rooms/{id}/read", bot("POST", api + "/read", #"{"upTo": \#(messageID)}"#)),
                ("POST /api/direct", bot("POST", "/api/direct", #"{"handle": "ben"}"#)),
                ("DELETE /api/rooms/{id}/messages/{message}", bot("DELETE", api + "/messages/\(botMessage)", "")),
                ("POST /admin/bots/{person}/key", form(ana, "/admin/bots/\(botID)/key")),
                ("POST /rooms/{id}/messages/{message}/delete", form(ana, message + "/delete")),
                ("POST /rooms/{id}/members", form(ana, room + "/members", [("members", "@chloe")])),
                ("POST /rooms/{id}/members/{member}/remove", form(ana, room + "/members/\(benID)/remove")),
                ("POST /admin/people/{person}/deactivate", form(ana, "/admin/people/\(benID)/deactivate")),
                ("POST /admin/people/{person}/reactivate", form(ana, "/admin/people/\(benID)/reactivate")),
                ("POST /rooms/{id}/leave", form(ana, "/rooms/\(roomID)/leave")),
                ("POST /settings/password", form(ana, "/settings/password", [("currentPassword", "correct horse battery"), ("newPassword", "a brand new secret")])),
                ("POST /signout", form(ana, "/signout")),
            ]
            // Links from before rooms: they only send the browser on.
            let moved = ["/chats/{id}/messages", "/chats/{id}/messages/{message}", "/chats/{id}/messages/{message}/delete", "/chats/{id}/read",
                         "/chats/{id}/feeds", "/chats/{id}/feeds/{feed}/retry", "/chats/{id}/feeds/{feed}/delete"].map { "POST " + $0 }
            let routes = try parlor.app.makeRouter().stateChangingRoutes
            let named = Set(steps.map(\.route) + moved)
            #expect(Set(routes).subtracting(named).isEmpty, "routes this test does not send anything: \(Set(routes).subtracting(named).sorted())")
            #expect(named.subtracting(routes).isEmpty, "routes that are gone: \(named.subtracting(routes).sorted())")
            for (route, step) in steps {
                let status = try await step()
                #expect(status < 500, "\(route): \(status)")
                let unrouted = parlor.unroutedWrites.operations.withLock { $0 }
                #expect(unrouted.isEmpty, "\(route) wrote around the router: \(unrouted)")
                parlor.unroutedWrites.operations.withLock { $0 = [] }
            }
            // And the watch itself sees a write that goes around the router.
            _ = try await parlor.store.endSessions(of: UserID(benID), keeping: nil)
            #expect(parlor.unroutedWrites.operations.withLock { $0 } == ["endSessions(of:keeping:)"])
            parlor.unroutedWrites.operations.withLock { $0 = [] }
        }
    }
}

/// Signing in a browser of its own.
enum SessionsSupport {
    /// The sign-in's status.
    static func signIn(_ handle: String, on port: UInt16) async throws -> Int {
        let browser = Visitor(port: port)
        try await browser.get("/signin")
        return try await browser.post("/signin", [("handle", handle), ("password", "correct horse battery")]).status
    }
}

/// A session that expires stops streaming by the next check of the streams' sessions, though nothing was said of it:
/// Parlor's clock is moved past the session's lifetime, and the check (every 100 ms here) closes the stream.
@Suite struct ExpiredSessionStreamTests {
    @Test func anExpiredSessionsStreamIsClosedAtTheNextCheckByParlorsClocks() async throws {
        // The checks are timed by the test's clock, the session's expiry by Parlor's "now": both moved on here.
        let timer = TestClock<Duration>()
        try await RunningParlor.with(configure: { $0.sessionCheckInterval = .seconds(30); $0.sessionLifetime = 3_600 }, timer: AnyClock(timer)) { parlor in
            let ana = parlor.visitor()
            #expect(try await ana.signUp("ana").status == 303)
            let general = try await ana.chat(named: "General")
            let (stream, head) = try await ana.openEvents("/events?chat=\(general.split(separator: "/").last!)")
            #expect(head.status == 200)
            _ = try await stream.read(until: "action=\"badge\"")
            let checked = parlor.app.streamSessions.checksMade
            let twice = await timer.advance(by: .seconds(5), until: { parlor.app.streamSessions.checksMade >= checked + 2 })
            #expect(try #require(twice, "checked twice while the session lives") >= .seconds(60), "one check per interval")
            // Still streaming after those checks: a live session's stream stays.
            #expect(try await ana.say("Still here after the checks", in: general).status == 303)
            _ = try await stream.read(until: "Still here after the checks")
            parlor.clock.advance(by: 3_601)
            let ended = try await timer.advance(by: .seconds(5), until: { try stream.hasEnded() })
            #expect(try #require(ended, "the stream of the expired session ended") <= .seconds(35), "at the next check")
            #expect(try await ana.get("/chats").header("Location") == "/signin")
        }
    }
}
