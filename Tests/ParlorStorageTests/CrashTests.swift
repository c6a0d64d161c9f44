#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorStorage
import Testing

/// No acknowledged write is lost, even when the process dies mid-commit.
@Suite struct CrashTests {
    static var writer: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("parlor-store-writer").path
    }

    /// Runs the writer with 8 concurrent senders until it has acknowledged at least `count` messages
    /// (at most 20 s), kills it with SIGKILL, and returns every acknowledgement it printed.
    func acknowledgements(writingTo path: String, atLeast count: Int) async throws -> [String: MessageID] {
        let child = try ChildProcess(executable: Self.writer, arguments: [path, "8"])
        var output = ""
        var acks: [String: MessageID] = [:]
        func collect() {
            output += child.readErrors()
            while let newline = output.firstIndex(of: "\n") {
                let fields = output[..<newline].split(separator: " ")
                if fields.count == 3, fields[0] == "ack", let id = Int64(fields[2]) { acks[String(fields[1])] = MessageID(id) }
                output.removeSubrange(...newline)
            }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while acks.count < count && ContinuousClock.now < deadline {
            collect()
            try await Task.sleep(for: .milliseconds(5))
        }
        child.send(SIGKILL)
        #expect(await child.waitForExit(within: 30) == 128 + SIGKILL)
        collect()  // what it printed before it died is still in the pipe
        #expect(acks.count >= count, "the writer acknowledged only \(acks.count) messages; its output: \(output)")
        return acks
    }

    @Test func everyAcknowledgedMessageSurvivesSIGKILLAndARestart() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("crash.sqlite")
        var acknowledged = try await acknowledgements(writingTo: path, atLeast: 400)
        // A second run opens the file the first left mid-write, recovers it, and writes on.
        acknowledged.merge(try await acknowledgements(writingTo: path, atLeast: 400)) { first, _ in first }

        let store = try SQLiteChatStore(path: path)
        var missing: [String] = []
        for (token, id) in acknowledged {
            let message = try await store.message(id)
            if message?.body != token { missing.append(token) }
        }
        #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged messages are missing: \(missing.prefix(5))")
        let chat = try #require(try await store.chatList(for: UserID(1)).first)
        let stored = try await store.messages(in: chat.chatID, before: nil, limit: 100_000).messages
        #expect(stored.count >= acknowledged.count)
        #expect(Set(stored.map(\.body)).count == stored.count, "a token was stored twice")
    }
}
