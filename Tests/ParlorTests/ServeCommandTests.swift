import Foundation
import HTTPTestSupport
import Testing

/// `parlor serve` as an operator runs it: a real process, real signals.
@Suite struct ServeCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `parlor` binary beside this test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("parlor")
    }

    /// A running `parlor serve` and the port it reported in its log.
    final class RunningParlor {
        let child: ChildProcess
        private(set) var log = ""
        var port: UInt16 = 0

        /// The SQLite file of this run, in a folder of its own (removed when this value goes).
        let database: String
        private let folder: URL

        init(arguments: [String], port: UInt16 = 0, templates: String = repository.appendingPathComponent("Templates").path, database: String? = nil) throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-serve-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.folder = folder
            self.database = database ?? folder.appendingPathComponent("parlor.sqlite").path
            child = try ChildProcess(executable: ServeCommandTests.executable.path, arguments: [
                "serve", "--host", "127.0.0.1", "--port", "\(port)",
                "--public", repository.appendingPathComponent("Public").path,
                "--templates", templates,
                "--database", self.database,
            ] + arguments)
        }

        deinit {
            try? FileManager.default.removeItem(at: folder)
        }

        /// Reads the log until the "listening" line names the port (at most 40 s: the whole suite starts at once on two
        /// cores, and a process started then may wait that long for its first slice).
        func waitUntilListening() async throws {
            let deadline = ContinuousClock.now + .seconds(40)
            while ContinuousClock.now < deadline {
                log += child.readErrors()
                if let range = log.range(of: #"address=127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    port = UInt16(log[range].split(separator: ":").last!)!
                    return
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw ClientError(description: "parlor did not report a port; log so far:\n\(log)")
        }

        /// Everything the process has logged so far.
        func logSoFar() -> String {
            log += child.readErrors()
            return log
        }

        /// Sends `signal` (SIGTERM by default) and waits (at most 40 s) for the exit status.
        func terminate(with signal: Int32 = SIGTERM) async throws -> Int32 {
            child.send(signal)
            return try await exitStatus()
        }

        /// Waits (at most 40 s, as above) for the process to end by itself.
        func exitStatus() async throws -> Int32 {
            guard let status = await child.waitForExit(within: 40) else {
                throw ClientError(description: "parlor did not exit within 40 s")
            }
            log += child.readErrors()
            return status
        }
    }

    @Test func servesThePlaceholderHealthAndPublicFilesThenExitsCleanlyOnSIGTERM() async throws {
        let parlor = try RunningParlor(arguments: ["--log-level", "info"])
        try await parlor.waitUntilListening()
        let client = try RawClient(port: parlor.port)
        let home = try await client.exchange("GET", "/")
        #expect(home.status == 303)
        #expect(home.header("Location") == "/signup", "a Parlor without people asks for its administrator")
        #expect(try await client.exchange("GET", "/signup").text.contains("Create the administrator account"))
        let signIn = try await client.exchange("GET", "/signin")
        #expect(signIn.status == 200)
        #expect(signIn.text.contains("<title>Sign in · Parlor</title>"))
        #expect(FileManager.default.fileExists(atPath: parlor.database), "the SQLite file is created at start-up")
        #expect(try await client.exchange("GET", "/healthz").text == "ok\n")
        let css = try await client.exchange("GET", "/public/css/parlor.css")
        #expect(css.header("Content-Type") == "text/css; charset=utf-8")
        #expect(try await client.exchange("GET", "/public/../Package.swift").status == 400)

        #expect(try await parlor.terminate() == 0)
        #expect(parlor.log.contains("GET /healthz 200"))
        #expect(parlor.log.contains("stopped"))
    }

    @Test func aDatabaseThatCannotBeOpenedStopsStartUpWithAClearLine() async throws {
        let parlor = try RunningParlor(arguments: [], database: "/nonexistent-folder-for-parlor/parlor.sqlite")
        #expect(try await parlor.exitStatus() == 74)
        #expect(parlor.log.contains("the database could not be opened"))
        #expect(parlor.log.contains("/nonexistent-folder-for-parlor/parlor.sqlite"))
    }

    @Test func exitsCleanlyOnSIGINTToo() async throws {
        let parlor = try RunningParlor(arguments: [])
        try await parlor.waitUntilListening()
        #expect(try await RawClient(port: parlor.port).exchange("GET", "/healthz").status == 200)
        #expect(try await parlor.terminate(with: SIGINT) == 0)
        #expect(parlor.log.contains("stopped"))
    }

    @Test func refusesToStartOnAPortInUse() async throws {
        let first = try RunningParlor(arguments: [])
        try await first.waitUntilListening()
        let second = try RunningParlor(arguments: [], port: first.port)
        #expect(try await second.exitStatus() != 0)
        #expect(second.log.contains("could not listen on 127.0.0.1:\(first.port)"))
        #expect(try await first.terminate() == 0)
    }

    @Test func oneHostileRequestNeverStopsTheServerAndItsLogLineStaysOneLine() async throws {
        let parlor = try RunningParlor(arguments: ["--log-level", "info"])
        try await parlor.waitUntilListening()
        let probe = try await RawClient(port: parlor.port).exchange(
            "GET", "/public/css/parlor.css", headers: ["If-Modified-Since: Sun, 06 Nov -2147483648 08:49:37 GMT"])
        #expect(probe.status == 200)
        let forged = try await RawClient(port: parlor.port).exchange("GET", "/x%0D%0Aforged%20line%1B%5B2J")
        #expect(forged.status == 404)
        #expect(try await RawClient(port: parlor.port).exchange("GET", "/healthz").status == 200, "still serving")
        #expect(try await parlor.terminate() == 0)
        #expect(parlor.log.contains("GET /x\\r\\nforged line\\x1b[2J 404"))
        #expect(!parlor.log.contains("\u{1B}"), "no terminal escape reaches the log")
        #expect(!parlor.log.split(separator: "\n").contains { $0.hasPrefix("forged") })
    }

    @Test(arguments: [
        ["--heartbeat", "1e300"], ["--shutdown-grace", "1e300"], ["--bot-reply-delay", "1e19"], ["--heartbeat", "nan"],
        ["--streams-per-account", "0"], ["--password-waiting-limit", "-1"],
        ["--image-megabytes", "9223372036854775807"], ["--image-threads", "0"], ["--image-waiting-limit", "-5"], ["--malloc-arenas", "-1"], ["--malloc-arenas", "99999999999"],
        ["--image-megapixels", "0"], ["--animation-megapixels", "9223372036854775807"], ["--progressive-jpeg-megabytes", "-1"],
    ])
    func aValuePastAnyUseIsRefusedAtStartWithoutATrap(_ flags: [String]) async throws {
        let parlor = try RunningParlor(arguments: flags)
        let status = try await parlor.exitStatus()
        #expect(status == 64, "a usage error, not a crash: \(status)")
        #expect(parlor.log.contains(flags[0]) || parlor.log.contains("seconds"), "the line says what to change")
    }
}

/// Readiness through a shutdown: `/readyz` answers 200 while serving and 503 from the moment SIGTERM
/// arrives (the drain delay keeps serving so a proxy can see it), then Parlor exits 0.
@Suite struct ReadinessTests {
    @Test(.timeLimit(.minutes(2))) func readyzTurns503AtSIGTERMWhileHealthzStaysAndTheExitIsClean() async throws {
        // Twenty seconds of draining, most of it idle: on a machine running a second suite beside this one, the polls
        // below once took longer than six and found the listener closed.
        let parlor = try ServeCommandTests.RunningParlor(arguments: ["--drain-delay", "20"])
        try await parlor.waitUntilListening()
        let ready = try await RawClient(port: parlor.port).exchange("GET", "/readyz")
        #expect(ready.status == 200 && ready.text == "ready\n")
        parlor.child.send(SIGTERM)
        var draining: TestResponse?
        for _ in 0..<100 {
            let response = try await RawClient(port: parlor.port).exchange("GET", "/readyz")
            if response.status == 503 {
                draining = response
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(draining?.text == "draining\n", "503 while shutting down")
        #expect(try await RawClient(port: parlor.port).exchange("GET", "/healthz").status == 200, "alive all the same")
        #expect(try await parlor.exitStatus() == 0)
    }
}
