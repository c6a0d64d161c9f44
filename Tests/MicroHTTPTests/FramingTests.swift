import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// Requests whose framing a proxy in front could read differently (RFC 9112 §6.3, §5.2) are refused with
/// 400 and their connection closed, so a request hidden in one never reaches a handler.
@Suite struct FramingTests {
    /// A form route, and a route the hidden requests aim at, which counts every call.
    static func router(hidden: Counter) -> Router {
        var router = Router()
        router.post("/form") { request in .text("form:\(request.form.fields.count)") }
        router.get("/hidden") { _ in
            hidden.increment()
            return .text("hidden")
        }
        router.get("/plain") { _ in .text("plain") }
        return router
    }

    static let smuggled = "GET /hidden HTTP/1.1\r\nHost: x\r\n\r\n"
    static let form = "POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"

    /// Each shape a smuggling probe used, with the request it hides in the body.
    static let shapes: [(String, String)] = [
        ("Content-Length with Transfer-Encoding",
         form + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("Transfer-Encoding with Content-Length",
         form + "Transfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n" + smuggled),
        ("two different Content-Lengths",
         form + "Content-Length: 0\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n" + smuggled),
        ("two equal Content-Lengths",
         form + "Content-Length: 0\r\nContent-Length: 0\r\n\r\n" + smuggled),
        ("a Content-Length folded over two lines",
         form + "Content-Length:\r\n \(smuggled.utf8.count)\r\n\r\n" + smuggled),
        ("another field folded over two lines",
         form + "X-Note: first\r\n\tsecond\r\nContent-Length: 0\r\n\r\n" + smuggled),
        ("Transfer-Encoding with a tab before the colon",
         form + "Transfer-Encoding\t: chunked\r\nContent-Length: 0\r\n\r\n" + smuggled),
        ("Transfer-Encoding with a space before the colon",
         form + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("a Transfer-Encoding other than chunked",
         form + "Transfer-Encoding: gzip\r\n\r\n" + smuggled),
        ("a Transfer-Encoding list",
         form + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("two Transfer-Encodings",
         form + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("no Host on HTTP/1.1",
         "GET /plain HTTP/1.1\r\n\r\n" + smuggled),
        ("two Hosts",
         "GET /plain HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" + smuggled),
    ]

    @Test(arguments: shapes.indices)
    func aRequestWhoseFramingIsAmbiguousIsRefusedAndItsConnectionClosed(_ index: Int) async throws {
        let (name, raw) = Self.shapes[index]
        let hidden = Counter()
        try await withServer(Self.router(hidden: hidden)) { _, port in
            let client = try RawClient(port: port)
            try client.send(raw)
            let response = try await client.readResponse()
            #expect(response.status == 400, "\(name)")
            #expect(response.header("Connection") == "close", "\(name)")
            #expect(await client.waitForClose(), "\(name): the connection stays open")
            #expect(hidden.count == 0, "\(name): the hidden request was answered")
            // The page is Parlor's, with the reason, and not libmicrohttpd's.
            #expect(response.text.contains("<p>"), "\(name)")
        }
    }

    /// Shapes libmicrohttpd refuses by itself before a handler is called: the connection still closes
    /// and the hidden request is never answered.
    @Test(arguments: [
        "Content-Length: 5, 5", "Content-Length: abc", "Content-Length: +0", "Content-Length: 0 ", "Content-Length: 99999999999999999999999",
    ])
    func aContentLengthLibmicrohttpdCannotReadClosesTheConnection(_ field: String) async throws {
        let hidden = Counter()
        try await withServer(Self.router(hidden: hidden)) { _, port in
            let client = try RawClient(port: port)
            try client.send(Self.form + field + "\r\n\r\n" + Self.smuggled)
            let response = try await client.readResponse()
            #expect([400, 413].contains(response.status))
            #expect(await client.waitForClose())
            #expect(hidden.count == 0)
        }
    }

    @Test func wellFramedRequestsKeepTheirConnection() async throws {
        let hidden = Counter()
        try await withServer(Self.router(hidden: hidden)) { _, port in
            let client = try RawClient(port: port)
            try client.send(Self.form + "Content-Length: 5\r\n\r\na=1&b")
            #expect(try await client.readResponse().text == "form:2")
            try client.send(Self.form + "Transfer-Encoding: Chunked\r\n\r\n3\r\na=1\r\n0\r\n\r\n")
            #expect(try await client.readResponse().text == "form:1")
            // White space before a value is not folding.
            try client.send(Self.form + "Content-Length:\t3\r\n\r\na=1")
            #expect(try await client.readResponse().text == "form:1")
            try client.send(Self.smuggled)
            #expect(try await client.readResponse().text == "hidden")
            #expect(hidden.count == 1)
        }
    }

    @Test func anHTTP10RequestMayLeaveOutHost() async throws {
        try await withServer(Self.router(hidden: Counter())) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /plain HTTP/1.0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "plain")
        }
    }

    @Test func fieldNamesMustBeTokens() {
        for byte in UInt8(0)...UInt8(127) {
            let expected = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            #expect(RequestFraming.isTokenCharacter(byte) == expected, "\(byte)")
        }
        #expect(!RequestFraming.isTokenCharacter(0xC3))
    }

    @Test func contentLengthIsDigitsOnlyAndNeverOverflows() {
        func length(_ text: String) -> Int? {
            var bytes = Array(text.utf8CString.dropLast())
            return bytes.withUnsafeMutableBufferPointer { RequestFraming.length(UnsafeBufferPointer($0)) }
        }
        #expect(length("0") == 0)
        #expect(length("65536") == 65536)
        #expect(length("9223372036854775807") == Int.max)
        #expect(length("9223372036854775808") == Int.max)
        #expect(length(String(repeating: "9", count: 400)) == Int.max)
        for bad in ["", "-1", "+1", " 1", "1 ", "1,1", "0x10", "١"] {
            #expect(length(bad) == nil, "\(bad)")
        }
    }
}
