import Foundation
import HTTPTestSupport
import Testing

/// What ends or changes a session on one instance ends or changes what every other instance serves: a sign-out, a
/// password change, `parlor admin reset-password`, a deactivation and a role change on the first instance, and the
/// choice to appear offline, each seen on the second. The second checks its streams' sessions only every five minutes
/// here (`--heartbeat 300`), so a stream that closes sooner was closed by the event, not by that check. (The bound is
/// 30 s, not a second: the tests' PostgreSQL server is shared, and a long transaction of another test holds back every
/// database's log; on a quiet machine each closes within milliseconds, as the printed line says.)
@Suite(.serialized, .timeLimit(.minutes(5))) struct SessionsAcrossInstancesTests {
    typealias RunningParlor = ServeCommandTests.RunningParlor

    static func instances(database: String, media: String) async throws -> [RunningParlor] {
        var started: [RunningParlor] = []
        for _ in 0..<2 {
            let parlor = try RunningParlor(
                arguments: [
                    "--log-level", "notice", "--media", media, "--database-connections", "4", "--metrics-address", "127.0.0.1",
                    "--heartbeat", "300", "--presence-refresh", "1",
                ],
                database: database
            )
            try await parlor.waitUntilListening()
            started.append(parlor)
        }
        return started
    }

    /// A browser of its own, signed in as `handle`, on `port`, with its session's form token.
    static func browser(_ handle: String, password: String = "correct horse battery", on port: UInt16) async throws -> Visitor {
        let browser = Visitor(port: port)
        try await browser.get("/signin")
        #expect(try await browser.post("/signin", [("handle", handle), ("password", password)]).status == 303)
        try await browser.get("/settings")
        return browser
    }

    /// A live page of `visitor`'s, its first state read.
    static func stream(_ visitor: Visitor, _ target: String = "/events") async throws -> RawClient {
        let (stream, head) = try await visitor.openEvents(target)
        #expect(head.status == 200)
        _ = try await stream.read(until: "action=\"badge\"")
        return stream
    }

    /// How long the server took from now to end `stream` (its last chunk); nil if it was still open after 30 s (the
    /// check at every heartbeat would have taken five minutes).
    static func closed(_ stream: RawClient) async -> Duration? {
        let started = ContinuousClock.now
        stream.setTimeout(30)
        guard (try? await stream.readToEnd()) != nil else { return nil }
        return ContinuousClock.now - started
    }

    static func id(_ handle: String, _ database: String) async throws -> String {
        try await TestPostgres.shared().sql("SELECT id FROM account WHERE handle = '\(handle)'", database: String(database.split(separator: "/").last!))
    }

    @Test func whatEndsOrChangesASessionOnOneInstanceReachesTheOther() async throws {
        let database = try await TestPostgres.shared().newDatabase()
        let media = try ScaleOutTests.mediaFolder()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let parlors = try await Self.instances(database: database, media: media)
        let (a, b) = (parlors[0].port, parlors[1].port)
        do {
            try await check(a, b, database: database)
        } catch {
            Issue.record("\(error); the second instance's log ends:\n\(ScaleOutTests.logTail(parlors[1], lines: 30))")
        }
        for parlor in parlors { await ScaleOutTests.stop(parlor) }
    }

    private func check(_ a: UInt16, _ b: UInt16, database: String) async throws {
        let ana = Visitor(port: a)
        #expect(try await ana.signUp("ana").status == 303, "the administrator")
        for handle in ["ben", "chloe", "dana"] { #expect(try await Visitor(port: a).signUp(handle).status == 303) }
        var latencies: [String: Duration] = [:]

        // A sign-out on the first instance closes that browser's stream on the second.
        let phone = try await Self.browser("ana", on: a)
        let phoneStream = try await Self.stream(ScaleOutTests.sameSession(phone, on: b))
        #expect(try await phone.post("/signout", []).status == 303)
        latencies["sign-out"] = await Self.closed(phoneStream)
        #expect(latencies["sign-out"] != nil, "a signed-out browser's stream on the other instance is closed")

        // A password change closes the other browsers' streams there, and not the one that changed it.
        let laptopStream = try await Self.stream(ScaleOutTests.sameSession(try await Self.browser("ana", on: a), on: b))
        let general = try await ana.chat(named: "General")
        let anaStream = try await Self.stream(ScaleOutTests.sameSession(ana, on: b), "/events?chat=\(general.split(separator: "/").last!)")
        try await ana.get("/settings")
        let changed = try await ana.post("/settings/password", [("currentPassword", "correct horse battery"), ("newPassword", "a brand new secret")])
        #expect(changed.status == 303)
        latencies["password change"] = await Self.closed(laptopStream)
        #expect(latencies["password change"] != nil)
        #expect(try await ana.say("Still streaming after the change", in: general).status == 303)
        _ = try await anaStream.read(until: "Still streaming after the change")

        // The operator resets Ben's password with Parlor running: his stream on the second instance closes, his pages go.
        let benOnB = ScaleOutTests.sameSession(try await Self.browser("ben", on: a), on: b)
        let benStream = try await Self.stream(benOnB)
        let reset = try await AdminCommandTests.run(["admin", "reset-password", "ben", "--database", database])
        #expect(reset.status == 0, "\(reset.errors)")
        latencies["parlor admin reset-password"] = await Self.closed(benStream)
        #expect(latencies["parlor admin reset-password"] != nil)
        #expect(try await benOnB.get("/chats").header("Location") == "/signin")

        // A deactivation on the first closes Chloé's stream on the second and refuses her pages there.
        let chloeOnB = ScaleOutTests.sameSession(try await Self.browser("chloe", on: a), on: b)
        let chloeStream = try await Self.stream(chloeOnB)
        try await ana.get("/admin")
        let chloe = try await Self.id("chloe", database)
        #expect(try await ana.post("/admin/people/\(chloe)/deactivate", []).status == 303)
        latencies["deactivation"] = await Self.closed(chloeStream)
        #expect(latencies["deactivation"] != nil)
        #expect(try await chloeOnB.get("/chats").header("Location") == "/signin")

        // A role change on the first: the Administration page on the second is hers from the next request.
        let dana = try await Self.browser("dana", on: a)
        let danaOnB = ScaleOutTests.sameSession(dana, on: b)
        #expect(try await danaOnB.get("/admin").status == 403)
        let danaID = try await Self.id("dana", database)
        try await ana.get("/admin")
        #expect(try await ana.post("/admin/people/\(danaID)/role", [("role", "administrator")]).status == 303)
        #expect(try await danaOnB.get("/admin").status == 200)

        // Dana has a page on the second instance and chooses, on the first, to appear offline: Ana, on the first, sees
        // her offline, and still offline after the second instance has said again who is there (every second here).
        let watching = try await Self.stream(ana, "/events?watch=\(danaID)")
        let danaPage = try await Self.stream(danaOnB, "/events?page=dana-b&visible=1")
        _ = try await watching.read(until: "data-user=\"\(danaID)\" data-state=\"active\"")
        try await dana.get("/settings")
        #expect(try await dana.post("/settings/notifications", [("appearOffline", "1")]).status == 303)
        _ = try await watching.read(until: "data-user=\"\(danaID)\" data-state=\"offline\"")
        let refreshes = "parlor_events_published_total{kind=\"presence_refreshed\"}"
        let before = try await metricValue(refreshes, port: b) ?? 0
        let refreshed = try await eventually(every: .milliseconds(100)) { (try await metricValue(refreshes, port: b) ?? 0) >= before + 3 }
        #expect(refreshed, "the second instance said who is there three more times")
        // Then she shows herself again: the next thing Ana sees of her is "active", and nothing before it was.
        #expect(try await dana.post("/settings/notifications", []).status == 303)
        let meanwhile = try await watching.read(until: "data-user=\"\(danaID)\" data-state=\"active\"")
        #expect(meanwhile.components(separatedBy: "data-state=\"active\"").count == 2, "offline held through the refreshes: \(meanwhile)")
        danaPage.close()
        watching.close()
        anaStream.close()
        print("streams closed on the other instance after: " + latencies.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
}
