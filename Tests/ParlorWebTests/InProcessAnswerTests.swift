import Foundation
import HTTPTestSupport
import Testing

/// Most route tests are answered in process (``RunningParlor/visitor()``): this suite holds that answer to the one a
/// connection gets, request by request, for pages, forms, refusals, files and odd addresses.
@Suite struct InProcessAnswerTests {
    /// Fields only a connection has (libmicrohttpd's date and keep-alive), and the request id an error page names.
    /// `Content-Length` is held to the body itself, since the two visitors' pages differ by whose they are (the first
    /// to sign up administers Parlor).
    static func comparable(_ response: TestResponse) -> (status: Int, headers: [String], body: String) {
        let headers = response.headers.map { "\($0.0.lowercased()): \($0.1)" }
            .filter { !$0.hasPrefix("date:") && !$0.hasPrefix("connection:") && !$0.hasPrefix("keep-alive:") && !$0.hasPrefix("content-length:") }
            .map { $0.replacing(/csrf=[^;]+/, with: "csrf=…") }.sorted()
        let body = response.text.replacing(/[0-9a-f]{1,4}-[0-9a-z]+/, with: "id")
            .replacing(/name="(csrf|token)" value="[^"]*"/, with: "name=\"$1\"")
        return (response.status, headers, body)
    }

    @Test func eachRequestIsAnsweredAsOverAConnection() async throws {
        try await RunningParlor.with { parlor in
            let socket = Visitor(port: parlor.port), inProcess = parlor.visitor()
            for visitor in [socket, inProcess] {
                try await visitor.signUp(visitor === socket ? "ana" : "ben")
            }
            let requests: [(String, String, [String], String?)] = [
                ("GET", "/css/parlor.css", [], nil),
                ("HEAD", "/js/parlor.js", [], nil),
                ("GET", "/nothing/here", [], nil),
                ("GET", "/rooms/%2Fx", [], nil),
                ("GET", "/rooms//1", [], nil),
                ("GET", "/rooms/%FF", [], nil),
                ("GET", "/rooms/../chats", [], nil),
                ("DELETE", "/chats", [], nil),
                ("GET", "/search?q=%FF", [], nil),
                ("GET", "/search?q=caf%C3%A9+au+lait", [], nil),
                ("GET", "/settings", [], nil),
                ("POST", "/chats/new", ["Content-Type: text/plain"], "handle=ben"),
                ("POST", "/chats/new", ["Content-Type: application/x-www-form-urlencoded"], "handle=%FF"),
                ("POST", "/chats/new", ["Content-Type: application/x-www-form-urlencoded", "Cookie: a=1", "Cookie: b=2"], "handle=x"),
                ("POST", "/signout", ["Content-Type: application/x-www-form-urlencoded"], "csrf=wrong"),
                ("GET", "/api/rooms", ["Authorization: Bearer nonsense"], nil),
                ("POST", "/api/rooms/1/messages", ["Content-Type: text/html"], "{}"),
            ]
            for (method, target, headers, body) in requests {
                // Each visitor asks as itself: the same page for two people differs only in whose it is.
                let overSocket = try await socket.send(method, target, headers: headers, body: body)
                let answered = try await inProcess.send(method, target, headers: headers, body: body)
                let (a, b) = (Self.comparable(overSocket), Self.comparable(answered))
                #expect(a.status == b.status, "\(method) \(target)")
                for response in [overSocket, answered] where method != "HEAD" {
                    #expect(response.header("Content-Length") == "\(response.body.count)", "\(method) \(target)")
                }
                #expect(a.headers == b.headers, "\(method) \(target)")
                if overSocket.status != 200 || !overSocket.text.contains("Ana") {
                    #expect(a.body == b.body, "\(method) \(target)")
                }
            }
        }
    }

    @Test func anUploadIsReadAndRefusedAsOverAConnection() async throws {
        try await RunningParlor.with { parlor in
            let socket = Visitor(port: parlor.port), inProcess = parlor.visitor()
            try await socket.signUp("ana")
            try await inProcess.signUp("ben")
            for visitor in [socket, inProcess] { try await visitor.get("/settings") }
            let notAnImage = Array("plain words, no picture".utf8)
            let refused = try await socket.postFile("/settings/avatar", field: "avatar", filename: "a.png", contentType: "image/png", bytes: notAnImage)
            let refusedHere = try await inProcess.postFile("/settings/avatar", field: "avatar", filename: "a.png", contentType: "image/png", bytes: notAnImage)
            #expect(refused.status == refusedHere.status && refused.status >= 400 && refused.status < 500)
            #expect(Self.comparable(refused).headers == Self.comparable(refusedHere).headers)
            // Nothing of either upload stays in the uploads folder once answered.
            let uploads = parlor.folder.appendingPathComponent("uploads").path
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).isEmpty)
        }
    }
}
