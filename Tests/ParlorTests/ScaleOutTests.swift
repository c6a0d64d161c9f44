import Foundation
import HTTPTestSupport
import Synchronization
import Testing

/// Several `parlor serve` instances on one PostgreSQL database, as people use them: what happens on one is
/// live on pages connected to another; Parlor Bot answers once; killing an instance mid-burst loses no
/// acknowledged message; a PostgreSQL restart is survived, and `/readyz` says so meanwhile.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ScaleOutTests {
    typealias RunningParlor = ServeCommandTests.RunningParlor

    /// Instances on `database`, sharing one media folder, their bots quick.
    static func instances(_ count: Int, database: String, media: String) async throws -> [RunningParlor] {
        var started: [RunningParlor] = []
        for _ in 0..<count {
            let parlor = try RunningParlor(
                arguments: [
                    "--log-level", "notice", "--media", media, "--bot-read-delay", "0.05", "--bot-reply-delay", "0.05", "--database-connections", "4",
                    "--metrics-address", "127.0.0.1",
                ],
                database: database
            )
            try await parlor.waitUntilListening()
            started.append(parlor)
        }
        return started
    }

    static func mediaFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-media-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Ana on the first instance and Ben on the second, in a chat: Ben's page of it streaming, Ana's open.
    static func anaAndBen(_ parlors: [RunningParlor]) async throws -> (ana: Visitor, ben: Visitor, chat: String, benStream: RawClient) {
        let ana = Visitor(port: parlors[0].port), ben = Visitor(port: parlors[1].port)
        #expect(try await ana.signUp("ana").status == 303)
        #expect(try await ben.signUp("ben").status == 303)
        let chat = try await ana.startChat(with: "ben")
        let (benStream, benHead) = try await ben.openEvents("/events?chat=\(chat.split(separator: "/").last!)")
        #expect(benHead.status == 200)
        _ = try await ana.get(chat)
        return (ana, ben, chat, benStream)
    }

    /// What `stream` brings until every one of `bodies` came, or 20 s passed.
    static func read(_ stream: RawClient, untilAll bodies: some Collection<String>) async -> String {
        var seen = ""
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, !bodies.allSatisfy({ seen.contains($0) }) {
            seen += (try? await stream.read(until: "\n\n")) ?? ""
        }
        return seen
    }

    /// The end of an instance's log, for whoever reads a failure.
    static func logTail(_ parlor: RunningParlor, lines: Int) -> String {
        (parlor.log + parlor.child.readErrors()).split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// A second browser of the same person, on another instance: the session is shared.
    static func sameSession(_ visitor: Visitor, on port: UInt16) -> Visitor {
        let other = Visitor(port: port)
        other.cookies = visitor.cookies
        other.csrf = visitor.csrf
        return other
    }

    @Test func messagesRepliesAndReadReceiptsCrossInstancesLive() async throws {
        let database = try await TestPostgres.shared().newDatabase()
        let media = try Self.mediaFolder()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let parlors = try await Self.instances(2, database: database, media: media)
        let (ana, ben, chat, benStream) = try await Self.anaAndBen(parlors)
        let (anaStream, _) = try await ana.openEvents("/events?chat=\(chat.split(separator: "/").last!)")

        // Ben's chat page, kept rendered on the second instance, must not outlive a change made on the first.
        #expect(try await ben.get(chat).status == 200)
        #expect(try await ana.say("Sent through the first instance", in: chat).status == 303)
        _ = try await benStream.read(until: "Sent through the first instance")
        #expect(try await ben.get(chat).text.contains("Sent through the first instance"), "not the page kept from before")
        // Ben opens the chat (which reads Ana's message) and answers: her page on the other instance shows
        // her message read, then his answer.
        #expect(try await ben.say("Answered through the second", in: chat).status == 303)
        let anaSaw = try await anaStream.read(until: "Answered through the second")
        #expect(anaSaw.contains("delivery-read"))
        // An edit on one shows on the other.
        let messageID = try await TestPostgres.shared().sql(
            "SELECT id FROM message WHERE body = 'Sent through the first instance'", database: String(database.split(separator: "/").last!)
        )
        #expect(try await ana.post(chat + "/messages/\(messageID)", [("body", "Edited on the first")]).status == 303)
        _ = try await benStream.read(until: "Edited on the first")
        for parlor in parlors {
            #expect(try await RawClient(port: parlor.port).exchange("GET", "/readyz").status == 200)
            await Self.stop(parlor)
        }
    }

    @Test func parlorBotAnswersEachMessageOnceWhateverTheNumberOfInstances() async throws {
        let database = try await TestPostgres.shared().newDatabase()
        let name = String(database.split(separator: "/").last!)
        let media = try Self.mediaFolder()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let parlors = try await Self.instances(3, database: database, media: media)
        let ana = Visitor(port: parlors[0].port)
        #expect(try await ana.signUp("ana").status == 303)
        let chat = try await ana.chat(named: "Parlor Bot")
        for (index, parlor) in parlors.enumerated() {
            let browser = Self.sameSession(ana, on: parlor.port)
            #expect(try await browser.say("Message \(index) through instance \(index)", in: chat).status == 303)
        }
        let botMessages = "SELECT count(*) FROM message m JOIN account a ON a.id = m.senderID WHERE a.handle = 'parlor'"
        // The welcome, then one answer to each of the three.
        var answers = ""
        let deadline = ContinuousClock.now + .seconds(20)
        while answers != "4", ContinuousClock.now < deadline {
            answers = (try? await TestPostgres.shared().sql(botMessages, database: name)) ?? ""
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(answers == "4")
        // Every instance's bot has done all it took on (each takes what its own instance applied): only then
        // can nothing more come.
        var takenInAll = 0.0
        for parlor in parlors {
            var (taken, done) = (0.0, -1.0)
            let until = ContinuousClock.now + .seconds(20)
            while done != taken, ContinuousClock.now < until {
                taken = try await metricValue("parlor_bot_work_taken", port: parlor.port) ?? 0
                done = try await metricValue("parlor_bot_work_done", port: parlor.port) ?? -1
                if done != taken { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(done == taken, "the bot on port \(parlor.port) did all it took on: \(done) of \(taken)")
            #expect(try await metricValue("parlor_bot_failures", port: parlor.port) == 0)
            takenInAll += taken
        }
        #expect(takenInAll >= 4, "the welcome and the three messages, at least")
        #expect(try await TestPostgres.shared().sql(botMessages, database: name) == "4", "nothing answered twice")
        #expect(try await TestPostgres.shared().sql("SELECT count(*) FROM account WHERE handle IN ('parlor', 'parlor_feeds')", database: name) == "2",
                "one bot account each, though three instances started")
        for parlor in parlors { await Self.stop(parlor) }
    }

    @Test func wrongPasswordsCountOnEveryInstance() async throws {
        let database = try await TestPostgres.shared().newDatabase()
        let media = try Self.mediaFolder()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let parlors = try await Self.instances(2, database: database, media: media)
        #expect(try await Visitor(port: parlors[0].port).signUp("ana").status == 303)
        // Twenty wrong guesses from one address (three at Ana, the rest at handles that are no one's), taking turns
        // between the instances: the address's limit is reached on both, so the next try waits on either.
        for guess in 0..<20 {
            let visitor = Visitor(port: parlors[guess % 2].port)
            try await visitor.get("/signin")
            let handle = guess < 3 ? "ana" : "nobody\(guess)"
            #expect(try await visitor.post("/signin", [("handle", handle), ("password", "wrong guess \(guess)")]).status == 422, "guess \(guess)")
        }
        for parlor in parlors {
            let visitor = Visitor(port: parlor.port)
            try await visitor.get("/signin")
            let refused = try await visitor.post("/signin", [("handle", "ana"), ("password", "correct horse battery")])
            #expect(refused.status == 429, "even the right password waits")
            #expect(refused.header("Retry-After") != nil)
        }
        for parlor in parlors { await Self.stop(parlor) }
    }

    @Test func killingAnInstanceMidBurstLosesNoAcknowledgedMessage() async throws {
        let database = try await TestPostgres.shared().newDatabase()
        let name = String(database.split(separator: "/").last!)
        let media = try Self.mediaFolder()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let parlors = try await Self.instances(2, database: database, media: media)
        let (ana, _, chat, benStream) = try await Self.anaAndBen(parlors)
        // Sixty sends through the first instance, 20 ms apart; it is killed once ten are answered.
        let answered = Answered()
        let sender = Sender(ana, port: parlors[0].port, chat: chat)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                group.addTask {
                    if await sender.say("Burst message \(index).", token: "burst-\(index)") { answered.list.withLock { $0.append(index) } }
                }
                if answered.list.withLock({ $0.count }) >= 10 {
                    parlors[0].child.send(SIGKILL)
                    break
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        _ = await parlors[0].child.waitForExit(within: 10)
        let acknowledged = answered.list.withLock { $0 }
        #expect(acknowledged.count >= 10, "sends were answered before the kill")
        let stored = Set(try await TestPostgres.shared().sql("SELECT body FROM message WHERE body LIKE 'Burst message %'", database: name).split(separator: "\n").map(String.init))
        #expect(stored.count < 60, "the kill came before the burst ended")
        for index in acknowledged { #expect(stored.contains("Burst message \(index)."), "acknowledged \(index) is stored") }
        // Ben's page on the surviving instance shows every stored one.
        let seen = await Self.read(benStream, untilAll: stored)
        for body in stored { #expect(seen.contains(body), "\(body) reached the page on the surviving instance") }
        await Self.stop(parlors[1])
    }

    @Test func aPostgreSQLRestartIsSurvivedAndReadinessTellsTheTruth() async throws {
        let server = try await TestPostgres.make()
        let database = try await server.newDatabase()
        let media = try Self.mediaFolder()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let parlors = try await Self.instances(2, database: database, media: media)
        do {
            let (ana, _, chat, benStream) = try await Self.anaAndBen(parlors)

            // Ana keeps sending through the first instance, every 50 ms, while PostgreSQL stops and starts.
            let answered = Answered()
            let steady = Sender(ana, port: parlors[0].port, chat: chat)
            let sender = Task {
                for index in 0..<1_000 where !Task.isCancelled {
                    if await steady.say("Steady message \(index).", token: "steady-\(index)") { answered.list.withLock { $0.append(index) } }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(await eventually { answered.list.withLock { $0.count } >= 5 })
            await server.stop()
            for parlor in parlors {
                #expect(await Self.answers(503, port: parlor.port, "/readyz"), "not ready while PostgreSQL is down")
            }
            let beforeRestart = answered.list.withLock { $0.count }
            try await server.start()
            for parlor in parlors {
                #expect(await Self.answers(200, port: parlor.port, "/readyz"), "ready again")
            }
            #expect(await eventually { answered.list.withLock { $0.count } >= beforeRestart + 5 }, "sends are answered again")
            sender.cancel()
            _ = await sender.value
            // Every acknowledged message, before, during and after, reached Ben's page on the other instance.
            let acknowledged = answered.list.withLock { $0 }.map { "Steady message \($0)." }
            let seen = await Self.read(benStream, untilAll: acknowledged)
            for body in acknowledged { #expect(seen.contains(body), "\(body) reached Ben's page") }
            #expect(try await ana.say("After the restart", in: chat).status == 303)
            _ = try await benStream.read(until: "After the restart")
        } catch {
            // Where each instance was, for whoever reads the failure.
            for parlor in parlors { Issue.record("instance on port \(parlor.port), its log ends:\n\(Self.logTail(parlor, lines: 30))") }
            throw error
        }
        for parlor in parlors { await Self.stop(parlor) }
        await server.stop()
    }
}

/// Sends a person's messages from any task: their session's cookies and form token, a connection each.
struct Sender: Sendable {
    let port: UInt16
    let path: String
    let headers: [String]
    let csrf: String

    init(_ visitor: Visitor, port: UInt16, chat: String) {
        self.port = port
        path = chat + "/messages"
        headers = ["Content-Type: application/x-www-form-urlencoded"] + visitor.cookieHeader
        csrf = visitor.csrf
    }

    /// Whether the send was answered 303 (stored); false for any other answer or none.
    func say(_ text: String, token: String) async -> Bool {
        let body = [("csrf", csrf), ("body", text), ("token", token)].map { "\(Visitor.encode($0.0))=\(Visitor.encode($0.1))" }.joined(separator: "&")
        guard let client = try? RawClient(port: port, timeout: 15), (try? client.send(RawClient.request("POST", path, headers: headers, body: body))) != nil,
              let response = try? await client.readResponse()
        else { return false }
        return response.status == 303
    }
}

/// Sends answered 303, by index.
final class Answered: Sendable {
    let list = Mutex<[Int]>([])
}

extension ScaleOutTests {
    /// SIGTERM, and exit 0 within 10 s; otherwise the end of its log says where it was.
    static func stop(_ parlor: RunningParlor) async {
        do {
            let status = try await parlor.terminate()
            #expect(status == 0)
        } catch {
            Issue.record("parlor did not stop within 10 s; its log ends:\n\(Self.logTail(parlor, lines: 40))")
        }
    }

    /// Whether GET `target` answers `status` within `seconds`, asked every tenth of a second.
    static func answers(_ status: Int, port: UInt16, _ target: String, within seconds: Double = 20) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let client = try? RawClient(port: port, timeout: 5), (try? await client.exchange("GET", target).status) == status { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}
