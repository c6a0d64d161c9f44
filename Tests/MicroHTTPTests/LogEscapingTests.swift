import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// Whatever a request carries, the log gets one line per request with its control characters escaped.
@Suite struct LogEscapingTests {
    @Test func controlCharactersAreWrittenAsEscapes() {
        #expect("plain /chats/7".escapedForLog == "plain /chats/7")
        #expect("a\r\nb".escapedForLog == "a\\r\\nb")
        #expect("\u{1B}[31mred".escapedForLog == "\\x1b[31mred")
        #expect("nul\0bell\u{07}tab\tdel\u{7F}".escapedForLog == "nul\\x00bell\\x07tab\\tdel\\x7f")
        #expect("c1\u{85}ls\u{2028}".escapedForLog == "c1\\u{85}ls\\u{2028}")
        #expect("already \\n".escapedForLog == "already \\\\n")
        #expect("café ☕".escapedForLog == "café ☕")
        // The handler-level guard leaves backslashes alone, so escapes made earlier stay single.
        #expect("a\\nb\nc".controlsEscapedForLog == "a\\nb\\nc")
    }

    @Test func aRequestCannotForgeLogLinesOrSendTerminalEscapes() async throws {
        var router = Router()
        router.get("/chats/{id}") { _ in .text("ok") }
        let logs = LogRecorder()
        try await withServer(router, logs: logs) { _, port in
            let response = try await RawClient(port: port).exchange(
                "GET", "/chats/7%0D%0A2026-11-24T06:00:00+0000%20info%20parlor:%20GET%20/admin%20200%1B%5B2J")
            #expect(response.status == 404)
        }
        let requestLines = logs.all.filter { $0.message.hasPrefix("GET ") }
        #expect(requestLines.count == 1)
        let line = try #require(requestLines.first)
        #expect(line.message.hasPrefix("GET /chats/7\\r\\n2026-11-24T06:00:00+0000 info parlor: GET /admin 200\\x1b[2J 404"))
        for recorded in logs.all {
            let text = recorded.message + recorded.metadata.values.joined()
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(recorded.message)")
        }
    }
}
