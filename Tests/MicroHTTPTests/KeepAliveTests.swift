import HTTPTestSupport
import Testing
@testable import MicroHTTP

@Suite struct KeepAliveTests {
    @Test func twoRequestsTravelOnOneConnection() async throws {
        var router = Router()
        router.get("/a") { _ in .text("first") }
        router.post("/b") { request in .text("second \(request.form["x"] ?? "")") }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            let first = try await client.exchange("GET", "/a")
            let second = try await client.exchange("POST", "/b", headers: ["Content-Type: application/x-www-form-urlencoded"], body: "x=1")
            let third = try await client.exchange("GET", "/a")
            #expect(first.text == "first")
            #expect(second.text == "second 1")
            #expect(third.text == "first")
            for response in [first, second, third] {
                #expect(response.header("Connection")?.lowercased() != "close")
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        var router = Router()
        router.get("/n/{n}") { request in .text(request.parameters["n"]!) }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            try client.send((1...5).map { RawClient.request("GET", "/n/\($0)") }.joined())
            let answers = try await (1...5).asyncMap { _ in try await client.readResponse().text }
            #expect(answers == ["1", "2", "3", "4", "5"])
        }
    }
}
