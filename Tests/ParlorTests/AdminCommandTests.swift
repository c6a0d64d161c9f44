import Foundation
import HTTPTestSupport
import Testing

/// `serve --signup invitation`, `parlor admin create-invite` and `parlor admin reset-password`, run as an operator
/// runs them, beside a serving Parlor.
@Suite struct AdminCommandTests {
    /// Runs `parlor` with `arguments`; its exit status, what it printed, and what it said on stderr.
    static func run(_ arguments: [String]) async throws -> (status: Int32?, output: String, errors: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-admin-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let child = try ChildProcess(executable: ServeCommandTests.executable.path, arguments: arguments, output: output)
        let status = await child.waitForExit(within: 60)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (status, printed.trimmingCharacters(in: .whitespacesAndNewlines), child.readErrors())
    }

    @Test(.timeLimit(.minutes(2))) func anOperatorLetsSomeoneInAndBackIn() async throws {
        // Streams' sessions are checked every five minutes here: a stream the reset ends sooner was ended by the change.
        let parlor = try ServeCommandTests.RunningParlor(arguments: ["--log-level", "notice", "--signup", "invitation", "--heartbeat", "300"])
        try await parlor.waitUntilListening()
        do {
            try await operate(parlor)
        } catch {
            _ = try? await parlor.terminate()
            throw error
        }
        #expect(try await parlor.terminate() == 0)
    }

    func operate(_ parlor: ServeCommandTests.RunningParlor) async throws {
        let ana = Visitor(port: parlor.port)
        #expect(try await ana.signUp("ana", name: "Ana Lima").status == 303, "the first person needs no invitation")
        let ben = Visitor(port: parlor.port)
        #expect(try await ben.signUp("ben").status == 403, "the unit's policy: by invitation")

        // An invitation for one account, printed whole.
        let invite = try await Self.run(["admin", "create-invite", "--database", parlor.database, "--uses", "1", "--url", "https://chat.example.org/"])
        #expect(invite.status == 0, "\(invite.errors)")
        let link = invite.output
        #expect(link.hasPrefix("https://chat.example.org/join/") && link.count > 40, "\(link)")
        let path = String(link.dropFirst("https://chat.example.org".count))
        try await ben.get(path)
        #expect(try await ben.post(path, [("handle", "ben"), ("displayName", "Ben"), ("password", "correct horse battery")]).status == 303)
        #expect(try await Visitor(port: parlor.port).get(path).status == 410, "used up")
        #expect(try await Self.run(["admin", "create-invite", "--database", parlor.database, "--days", "0"]).status == 64)

        // A new password: printed once, every session of hers ended (the running server closes her live page as soon
        // as it sees the change in the file), the old one refused.
        try await ana.get("/chats")
        let (stream, head) = try await ana.openEvents("/events")
        #expect(head.status == 200)
        _ = try await stream.read(until: "action=\"badge\"")
        let reset = try await Self.run(["admin", "reset-password", "@ana", "--database", parlor.database])
        #expect(reset.status == 0, "\(reset.errors)")
        #expect(reset.errors.contains("1 session ended"))
        let resetAt = ContinuousClock.now
        stream.setTimeout(30)
        #expect((try? await stream.readToEnd()) != nil, "her stream ended")
        print("stream ended \(ContinuousClock.now - resetAt) after parlor admin reset-password returned")
        let password = reset.output
        #expect(password.count >= 20 && !password.contains(" "))
        #expect(try await ana.get("/chats").header("Location") == "/signin", "signed out")
        try await ana.get("/signin")
        #expect(try await ana.post("/signin", [("handle", "ana"), ("password", "correct horse battery")]).status == 422)
        #expect(try await ana.post("/signin", [("handle", "ana"), ("password", password)]).status == 303)

        let nobody = try await Self.run(["admin", "reset-password", "nobody", "--database", parlor.database])
        #expect(nobody.status == 67 && nobody.errors.contains("nobody is called @nobody"))
        #expect(try await Self.run(["admin", "reset-password", "no such handle!", "--database", parlor.database]).status == 64)
        let missing = try await Self.run(["admin", "create-invite", "--database", parlor.database + ".missing"])
        #expect(missing.status == 74 && missing.errors.contains("does not exist"))
    }
}
