import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// The client's address from the peer and the whole forwarded chain, walked from the right past the
/// proxies the server trusts; and how repeated header lines are read.
@Suite struct ClientAddressTests {
    static let proxies: Set<String> = ["127.0.0.2", "10.0.0.5", "::1"]

    static func resolve(_ peer: String, _ lines: [String]) -> String? {
        ClientAddress.resolve(peer: peer, forwardedFor: lines, trusted: proxies)
    }

    @Test func anUntrustedPeerIsTheClientWhateverItWrites() {
        #expect(Self.resolve("203.0.113.9", ["127.0.0.6"]) == "203.0.113.9")
        #expect(ClientAddress.resolve(peer: "127.0.0.2", forwardedFor: ["127.0.0.6"], trusted: []) == "127.0.0.2", "no proxies: never read")
    }

    @Test func repeatedLinesAreOneListAndTheProxysOwnLineIsTheLast() {
        // A client wrote the first line; the proxy (HAProxy's option forwardfor) added its own.
        #expect(Self.resolve("127.0.0.2", ["127.0.0.6", "198.51.100.7"]) == "198.51.100.7")
        // Several proxies, each trusted, each adding the address it saw.
        #expect(Self.resolve("127.0.0.2", ["127.0.0.6, 198.51.100.7", "10.0.0.5"]) == "198.51.100.7")
        #expect(Self.resolve("127.0.0.2", ["198.51.100.7, 10.0.0.5"]) == "198.51.100.7")
        // Every hop trusted: the leftmost began it.
        #expect(Self.resolve("127.0.0.2", ["10.0.0.5", "::1"]) == "10.0.0.5")
        // No field at all: the proxy is the client.
        #expect(Self.resolve("127.0.0.2", []) == "127.0.0.2")
        #expect(Self.resolve("127.0.0.2", [" , ,198.51.100.7 ,"]) == "198.51.100.7", "empty list elements are skipped")
    }

    @Test func ipv6WithBracketsAndPortsAndIPv4WithPortsAreReadAsThePeerIsWritten() {
        #expect(Self.resolve("::1", ["[2001:db8::7]:4711"]) == "2001:db8::7")
        #expect(Self.resolve("::1", ["2001:DB8:0:0:0:0:0:7"]) == "2001:db8::7")
        #expect(Self.resolve("127.0.0.2", ["198.51.100.7:8080"]) == "198.51.100.7")
        #expect(Self.resolve("127.0.0.2", ["[0:0:0:0:0:0:0:1]", "10.0.0.5"]) == "::1", "a trusted hop spelled out is still trusted")
        #expect(ClientAddress.canonical("[::1]") == "::1" && ClientAddress.canonical("[::1]:443") == "::1")
        #expect(ClientAddress.canonical("127.0.0.1:0") == nil && ClientAddress.canonical("127.0.0.1:65536") == nil)
        #expect(ClientAddress.canonical("::1:80") == "::0.1.0.128", "several colons without brackets: an IPv6 address, not ::1 and a port")
    }

    @Test(arguments: ["unknown", "_hidden", "example.org", "1.2.3", "[::1", "[::1]x", "999.1.1.1", "1.2.3.4:x", "", String(repeating: "1", count: 100)])
    func somethingThatIsNoAddressEndsTheWalkAsNotKnown(garbage: String) {
        #expect(Self.resolve("127.0.0.2", [garbage + ", 10.0.0.5"]) == (garbage.isEmpty ? "10.0.0.5" : nil))
        #expect(Self.resolve("127.0.0.2", ["127.0.0.6, " + garbage + ", 198.51.100.7"]) == "198.51.100.7", "never reached")
    }

    @Test func forwardedIsNotRead() {
        let headers: HTTPHeaders = ["Forwarded": "for=127.0.0.6", "X-Forwarded-For": "198.51.100.7"]
        #expect(Self.resolve("127.0.0.2", headers.values(for: "X-Forwarded-For")) == "198.51.100.7")
        #expect(Self.resolve("127.0.0.2", HTTPHeaders(dictionaryLiteral: ("Forwarded", "for=127.0.0.6")).values(for: "X-Forwarded-For")) == "127.0.0.2")
    }

    @Test func theLastElementOfAListIsTheNearestProxysWord() {
        #expect(ClientAddress.lastElement(["http", "https"]) == "https")
        #expect(ClientAddress.lastElement(["https, http"]) == "http")
        #expect(ClientAddress.lastElement(["a, ", " "]) == "a")
        #expect(ClientAddress.lastElement([]) == nil)
    }

    @Test func repeatedLinesAreJoinedOrRefusedByTheFieldsRule() {
        var headers = HTTPHeaders()
        headers.add("Accept", "text/html")
        headers.add("accept", "text/plain")
        headers.add("Cookie", "a=1")
        headers.add("Cookie", "b=2")
        headers.add("X-Forwarded-For", "1.1.1.1")
        headers.add("X-Forwarded-For", "2.2.2.2")
        headers.add("Host", "parlor.example")
        #expect(headers["ACCEPT"] == "text/html, text/plain")
        #expect(headers["Cookie"] == "a=1; b=2")
        #expect(headers["X-Forwarded-For"] == "1.1.1.1, 2.2.2.2")
        #expect(headers["Host"] == "parlor.example" && headers.repeatedSingleton == nil)
        headers.add("Authorization", "Bearer a")
        headers.add("authorization", "Bearer b")
        #expect(headers.repeatedSingleton == "authorization")
        #expect(headers["Authorization"] == "Bearer a", "never joined; such a request is refused before a handler")
        for name in ["Host", "Content-Length", "Content-Type", "Authorization", "Origin", "Referer", "Last-Event-ID", "X-Parlor-CSRF"] {
            #expect(HTTPHeaders.repetition(of: name) == .refused, "\(name)")
        }
        #expect(HTTPHeaders.repetition(of: "cookie") == .cookie && HTTPHeaders.repetition(of: "Set-Cookie") == .separate)
        #expect(HTTPHeaders.repetition(of: "X-Something-New") == .joined)
        var response = HTTPHeaders()
        response.add("Set-Cookie", "a=1")
        response.add("Set-Cookie", "b=2")
        #expect(response["Set-Cookie"] == "a=1" && response.values(for: "Set-Cookie") == ["a=1", "b=2"])
    }
}

/// One spelling per address, and fields that may not repeat, checked on the real server.
@Suite struct RequestTargetTests {
    static func router(mountedAt mount: String = "") -> Router {
        var router = Router()
        router.mountPath = mount
        router.get("/healthz") { _ in .text("ok") }
        router.get("/chats/{id}") { request in .text("chat \(request.parameters["id"] ?? "")") }
        router.get("/echo") { request in .text(request.headers["X-Forwarded-For"] ?? "-") }
        return router
    }

    @Test func pathsWithEmptySegmentsOrEncodedSlashesAreNotFoundEverywhere() async throws {
        try await withServer(Self.router(mountedAt: "/chat")) { _, port in
            for target in ["/chat/healthz", "/chat/healthz/", "/chat/chats/7"] {
                #expect(try await RawClient(port: port).exchange("GET", target).status == 200, "\(target)")
            }
            for target in ["//chat/healthz", "/chat//healthz", "/chat%2fhealthz", "/chat%2Fhealthz", "/chat/chats%2F7", "/chat/chats//7",
                           "/chat/healthz//", "//"] {
                let response = try await RawClient(port: port).exchange("GET", target)
                #expect(response.status == 404, "\(target)")
            }
            #expect(try await RawClient(port: port).exchange("GET", "/chat/chats/7?next=%2Fchats%2F1").status == 200, "%2F in a query is ordinary")
        }
        try await withServer(Self.router()) { _, port in
            var statuses: [Int] = []
            for target in ["//healthz", "/%2fhealthz", "/healthz"] {
                statuses.append(try await RawClient(port: port).exchange("GET", target).status)
            }
            #expect(statuses == [404, 404, 200])
        }
    }

    @Test func aRepeatedFieldThatMayNotRepeatIs400AndAListIsJoined() async throws {
        try await withServer(Self.router()) { _, port in
            let twice = try await RawClient(port: port).exchange("GET", "/echo", headers: ["Authorization: Bearer a", "Authorization: Bearer b"])
            #expect(twice.status == 400 && twice.text.contains("Authorization"))
            let origins = try await RawClient(port: port).exchange("GET", "/echo", headers: ["Origin: http://a", "Origin: http://b"])
            #expect(origins.status == 400)
            let joined = try await RawClient(port: port).exchange("GET", "/echo", headers: ["X-Forwarded-For: 1.1.1.1", "X-Forwarded-For: 2.2.2.2"])
            #expect(joined.status == 200 && joined.text == "1.1.1.1, 2.2.2.2")
        }
    }
}
