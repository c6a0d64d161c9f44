import Synchronization
import HTTPTestSupport
import Testing
@testable import MicroHTTP

@Suite struct LimitsTests {
    static func router(calls: Counter) -> Router {
        var router = Router()
        router.post("/small", bodyLimit: 100) { request in
            calls.increment()
            return .text("got \(request.form["text"]?.count ?? 0)")
        }
        router.post("/default") { _ in .text("ok") }
        return router
    }

    @Test func tooLargeContentLengthIs413BeforeTheBodyIsSent() async throws {
        let calls = Counter()
        try await withServer(Self.router(calls: calls)) { _, port in
            let client = try RawClient(port: port)
            // Only the head is sent: the answer must not wait for 5 MB that never come.
            try client.send("POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000000\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(response.text.contains("100 bytes"))
        }
        #expect(calls.count == 0)
    }

    @Test func bodyWithinTheRouteLimitIsAccepted() async throws {
        let calls = Counter()
        try await withServer(Self.router(calls: calls)) { _, port in
            let body = "text=" + String(repeating: "a", count: 90)
            let response = try await RawClient(port: port).exchange(
                "POST", "/small", headers: ["Content-Type: application/x-www-form-urlencoded"], body: body)
            #expect(response.text == "got 90")
        }
    }

    @Test func serverDefaultLimitApplies() async throws {
        try await withServer(Self.router(calls: Counter()), configure: { $0.defaultBodyLimit = 1000 }) { _, port in
            let response = try await RawClient(port: port).exchange(
                "POST", "/default", headers: ["Content-Type: application/x-www-form-urlencoded"],
                body: "text=" + String(repeating: "b", count: 1200))
            #expect(response.status == 413)
        }
    }

    @Test func oversizeChunkedBodyIsCutOff() async throws {
        let calls = Counter()
        try await withServer(Self.router(calls: calls)) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
            let piece = "text=" + String(repeating: "c", count: 60)
            var sentAll = true
            for _ in 0..<10 {
                do {
                    try client.send(String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n")
                } catch {
                    sentAll = false
                    break
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            if sentAll { try? client.send("0\r\n\r\n") }
            #expect(await client.waitForClose())
        }
        #expect(calls.count == 0)
    }

    @Test func bodyThatIsNotAFormIs415() async throws {
        try await withServer(Self.router(calls: Counter())) { _, port in
            let response = try await RawClient(port: port).exchange(
                "POST", "/small", headers: ["Content-Type: application/json"], body: "{\"a\":1}")
            #expect(response.status == 415)
        }
    }
}
