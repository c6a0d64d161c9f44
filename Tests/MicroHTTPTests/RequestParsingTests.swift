import Synchronization
import HTTPTestSupport
import Testing
@testable import MicroHTTP

@Suite struct RequestParsingTests {
    /// Echoes what the server understood, one "name=value" per line.
    static var router: Router {
        var router = Router()
        router.get("/echo") { request in
            var lines = request.query.map { "q:\($0.name)=\($0.value)" }
            lines.append("h:\(request.headers["x-custom"] ?? "-")")
            lines.append("c:\(request.cookies["session"] ?? "-")|\(request.cookies["theme"] ?? "-")")
            lines.append("peer:\(request.peerAddress ?? "-")")
            return .text(lines.joined(separator: "\n"))
        }
        router.post("/form") { request in
            var lines = request.form.fields.map { "f:\($0.name)=\($0.value)" }
            lines += request.form.files.map { "file:\($0.fieldName)=\($0.filename)|\($0.contentType ?? "-")|\($0.bytes.count)|\(String(decoding: $0.bytes, as: UTF8.self))" }
            return .text(lines.joined(separator: "\n"))
        }
        return router
    }

    @Test func queryItemsAreDecodedInOrder() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange("GET", "/echo?name=Ana%20Lima&tag=a&tag=b&empty=&caf%C3%A9=%E2%98%95")
            #expect(response.text.hasPrefix("q:name=Ana Lima\nq:tag=a\nq:tag=b\nq:empty=\nq:café=☕\n"))
        }
    }

    @Test func plusInQueryIsASpaceAsBrowsersSendIt() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange("GET", "/echo?q=hello+world")
            #expect(response.text.hasPrefix("q:q=hello world\n"))
        }
    }

    @Test func invalidUTF8InQueryIs400() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange("GET", "/echo?q=%FF%FE")
            #expect(response.status == 400)
        }
    }

    @Test func invalidUTF8InPathIs400() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange("GET", "/ec%FFho")
            #expect(response.status == 400)
        }
    }

    @Test func headersAreCaseInsensitiveAndCookiesParsed() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange(
                "GET", "/echo", headers: ["X-CUSTOM: shouting", "Cookie: theme=dark; session=\"abc123\"", "Cookie: other=1"])
            #expect(response.text.contains("h:shouting\n"))
            #expect(response.text.contains("c:abc123|dark\n"))
            #expect(response.text.hasSuffix("peer:127.0.0.1"))
        }
    }

    @Test func urlencodedFormIsParsed() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange(
                "POST", "/form", headers: ["Content-Type: application/x-www-form-urlencoded"],
                body: "body=Hello%2C+world%21%0D%0ASecond+line&to=ana&emoji=%F0%9F%98%80&blank=")
            #expect(response.status == 200)
            #expect(response.text == "f:body=Hello, world!\r\nSecond line\nf:to=ana\nf:emoji=😀\nf:blank=")
        }
    }

    @Test func formSentInSmallPiecesIsJoined() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            let value = String(repeating: "é☕", count: 300)  // multi-byte characters split across pieces
            let encoded = value.utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
            let body = "first=" + encoded + "&second=plain+text"
            try client.send("POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            let bytes = Array(body.utf8)
            for start in stride(from: 0, to: bytes.count, by: 7) {
                try client.send(Array(bytes[start..<min(start + 7, bytes.count)]))
                if start % 700 == 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            let response = try await client.readResponse()
            #expect(response.text == "f:first=\(value)\nf:second=plain text")
        }
    }

    @Test func chunkedFormWithValuesSplitAcrossChunksIsJoined() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
            for piece in ["na", "me=Jo", "s%C3", "%A9&ci", "ty=S%C3%A3o+Paulo"] {
                try client.send(String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n")
                try await Task.sleep(for: .milliseconds(3))
            }
            try client.send("0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.text == "f:name=José\nf:city=São Paulo")
        }
    }

    @Test func multipartFieldsAndFilesAreParsed() async throws {
        try await withServer(Self.router) { _, port in
            let boundary = "----ParlorBoundary7MA4YWxk"
            let body = [
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nMy cat, ça va?\r\n",
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"cat.png\"\r\nContent-Type: image/png\r\n\r\n\u{1}PNGDATA\r\n",
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nline one\r\nline two\r\n",
                "--\(boundary)--\r\n",
            ].joined()
            let client = try RawClient(port: port)
            try client.send("POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            let bytes = Array(body.utf8)
            for start in stride(from: 0, to: bytes.count, by: 13) {
                try client.send(Array(bytes[start..<min(start + 13, bytes.count)]))
            }
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "f:caption=My cat, ça va?\nf:note=line one\r\nline two\nfile:avatar=cat.png|image/png|8|\u{1}PNGDATA")
        }
    }

    @Test func invalidUTF8InFormFieldIs400AndHandlerNeverRuns() async throws {
        let calls = Counter()
        var router = Router()
        router.post("/form") { _ in
            calls.increment()
            return .text("ran")
        }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            let response = try await client.exchange("POST", "/form", headers: ["Content-Type: application/x-www-form-urlencoded"],
                                               body: "body=%C3%28bad")
            #expect(response.status == 400)
            #expect(response.text.contains("not valid UTF-8"))
            // Raw bytes that are not UTF-8 fail the same way.
            var raw = Array("POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\nbody=".utf8)
            raw += [0xFF, 0xFE]
            try client.send(raw)
            #expect(try await client.readResponse().status == 400)
        }
        #expect(calls.count == 0)
    }
}
