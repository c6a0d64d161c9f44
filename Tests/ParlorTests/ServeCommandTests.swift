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
        let process = Process()
        let errors = Pipe()
        private(set) var log = ""
        var port: UInt16 = 0

        init(arguments: [String]) throws {
            process.executableURL = ServeCommandTests.executable
            process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0",
                                 "--public", repository.appendingPathComponent("Public").path,
                                 "--templates", repository.appendingPathComponent("Templates").path] + arguments
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
        }

        /// Reads the log until the "listening" line names the port (at most 10 s).
        func waitUntilListening() async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            // Non-blocking reads: a blocked thread here could starve the test run.
            let descriptor = errors.fileHandleForReading.fileDescriptor
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            var chunk = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < deadline {
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { try await Task.sleep(for: .milliseconds(10)); continue }
                log += String(decoding: chunk[0..<count], as: UTF8.self)
                if let range = log.range(of: #"address=127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    port = UInt16(log[range].split(separator: ":").last!)!
                    return
                }
            }
            throw ClientError(description: "parlor did not report a port; log so far:\n\(log)")
        }

        /// Sends `signal` (SIGTERM by default) and waits (at most 10 s) for the exit status.
        func terminate(with signal: Int32 = SIGTERM) async throws -> Int32 {
            kill(process.processIdentifier, signal)
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                throw ClientError(description: "parlor did not exit within 10 s of SIGTERM")
            }
            let descriptor = errors.fileHandleForReading.fileDescriptor
            var chunk = [UInt8](repeating: 0, count: 4096)
            while case let count = read(descriptor, &chunk, chunk.count), count > 0 {
                log += String(decoding: chunk[0..<count], as: UTF8.self)
            }
            return process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    @Test func servesThePlaceholderHealthAndPublicFilesThenExitsCleanlyOnSIGTERM() async throws {
        let parlor = try RunningParlor(arguments: ["--log-level", "info"])
        try await parlor.waitUntilListening()
        let client = try RawClient(port: parlor.port)
        let home = try await client.exchange("GET", "/")
        #expect(home.status == 200)
        #expect(home.text.contains("<title>Parlor</title>"))
        #expect(try await client.exchange("GET", "/healthz").text == "ok\n")
        let css = try await client.exchange("GET", "/public/css/parlor.css")
        #expect(css.header("Content-Type") == "text/css; charset=utf-8")
        #expect(try await client.exchange("GET", "/public/../Package.swift").status == 400)

        #expect(try await parlor.terminate() == 0)
        #expect(parlor.log.contains("GET /healthz 200"))
        #expect(parlor.log.contains("stopped"))
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
        let second = Process()
        second.executableURL = Self.executable
        second.arguments = ["serve", "--port", "\(first.port)", "--public", Self.repository.appendingPathComponent("Public").path,
                            "--templates", Self.repository.appendingPathComponent("Templates").path]
        let errors = Pipe()
        second.standardError = errors
        try second.run()
        second.waitUntilExit()
        #expect(second.terminationStatus != 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("could not listen on 127.0.0.1:\(first.port)"))
        #expect(try await first.terminate() == 0)
    }
}
