import Foundation
import HTTPTestSupport
import Testing

/// `--log-format json`: every line one JSON object that a log shipper can parse, with the request id,
/// whatever bytes a request carried.
@Suite struct JSONLogTests {
    @Test(.timeLimit(.minutes(1))) func everyLineIsAJSONObjectAndHostileBytesStayEscaped() async throws {
        let parlor = try ServeCommandTests.RunningParlor(arguments: ["--log-format", "json"])
        var log = ""
        var port: UInt16?
        for _ in 0..<500 where port == nil {
            log += parlor.child.readErrors()
            port = log.firstMatch(of: /"address":"127\.0\.0\.1:(\d+)"/).flatMap { UInt16($0.1) }
            try await Task.sleep(for: .milliseconds(10))
        }
        let listening = try #require(port, "no listening line in:\n\(log)")
        // A path with an escape sequence and a line break in it, percent-encoded and raw.
        _ = try await RawClient(port: listening).exchange("GET", "/no-such%0A%1B[31mplace")
        _ = try await RawClient(port: listening).exchange("GET", "/healthz", headers: ["User-Agent: x\u{1B}[2Jy"])
        #expect(try await parlor.terminate() == 0)
        log += parlor.log  // what the stop read
        let lines = log.split(separator: "\n")
        #expect(lines.count >= 4)
        var requests = 0
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a raw control character: \(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            #expect(object["time"] is String && object["level"] is String && object["message"] is String)
            if object["request"] != nil { requests += 1 }
        }
        #expect(requests >= 2, "the request lines carry their id")
    }
}
