import HTTPTestSupport
import Testing
@testable import OutboundHTTP

/// The outbound client against a scripted server on 127.0.0.1 (allowed by its policy, on that port only): what it
/// sends, which redirects it follows, and the limits it holds every answer to. The feed fetcher's tests hold it to
/// the same on a feed's conditional GET.
@Suite(.timeLimit(.minutes(5))) struct OutboundClientTests {
    /// A bound where the test is not about time: above what a busy machine can hold a loopback answer back. At the
    /// suite's start the cooperative pool that reads the answer can be busy for more than 30 s (a redirect's two hops
    /// once timed out so), as the feed fetcher's tests found too.
    static let deadline = Duration.seconds(90)

    static func client(_ server: ScriptedServer, timeout: Duration = deadline, byteLimit: Int = 10_000, redirects: Int = 0) -> OutboundClient {
        OutboundClient(policy: AddressPolicy(ports: [server.port], allowsLoopback: true), timeout: timeout, byteLimit: byteLimit, redirectLimit: redirects)
    }

    @Test func aPostIsSentWithItsHeadersAndBodyAndARedirectIsItsAnswer() async throws {
        let server = try ScriptedServer { path, _ in
            path == "/moved" ? .answer(status: "307 Temporary Redirect", headers: ["Location: /elsewhere"]) : .answer(status: "201 Created", body: Array("made".utf8))
        }
        defer { server.stop() }
        let client = Self.client(server, redirects: 5)
        let made = try await client.send(OutboundRequest(.post, server.url("/hook"), headers: [("Content-Type", "application/json")], body: Array("{}".utf8)))
        #expect(made.status == 201 && made.body == Array("made".utf8) && made.url == server.url("/hook"))
        #expect(server.received.last?.headers["content-type"] == "application/json" && server.receivedBodies.last == Array("{}".utf8))
        // A POST follows no redirect, whatever the client allows a GET: the 3xx is the answer.
        let moved = try await client.send(OutboundRequest(.post, server.url("/moved"), body: []))
        #expect(moved.status == 307 && moved.header("location") == "/elsewhere")
        #expect(!server.received.contains { $0.path == "/elsewhere" })
    }

    @Test func aGetFollowsRedirectsWithinItsLimitEachHopChecked() async throws {
        let server = try ScriptedServer { path, _ in
            switch path {
            case "/one": .answer(status: "302 Found", headers: ["Location: /two"])
            case "/two": .answer(status: "200 OK", body: Array("here".utf8))
            case "/loop": .answer(status: "302 Found", headers: ["Location: /loop"])
            case "/to-private": .answer(status: "301 Moved Permanently", headers: ["Location: http://192.168.1.1:\(0)/"])
            default: .answer(status: "404 Not Found")
            }
        }
        defer { server.stop() }
        let none = try await Self.client(server).send(OutboundRequest(.get, server.url("/one")))
        #expect(none.status == 302, "no redirects unless told")
        let followed = try await Self.client(server, redirects: 2).send(OutboundRequest(.get, server.url("/one")))
        #expect(followed.status == 200 && followed.url == server.url("/two") && followed.body == Array("here".utf8))
        await #expect(throws: OutboundError.tooManyRedirects) { try await Self.client(server, redirects: 2).send(OutboundRequest(.get, server.url("/loop"))) }
        #expect(server.received.filter { $0.path == "/loop" }.count == 3, "the first request and two redirects")
        await #expect(throws: OutboundError.portNotAllowed(0)) { try await Self.client(server, redirects: 2).send(OutboundRequest(.get, server.url("/to-private"))) }
    }

    @Test func aSuccessLongerThanTheLimitIsRefusedAndAnErrorPageIsCut() async throws {
        let server = try ScriptedServer { path, _ in
            path == "/big" ? .answer(status: "200 OK", body: [UInt8](repeating: 65, count: 20_000))
                : .answer(status: "500 Internal Server Error", body: [UInt8](repeating: 66, count: 20_000))
        }
        defer { server.stop() }
        let client = Self.client(server)
        await #expect(throws: OutboundError.tooLarge(bytes: 10_000)) { try await client.send(OutboundRequest(.get, server.url("/big"))) }
        let failed = try await client.send(OutboundRequest(.get, server.url("/broken")))
        #expect(failed.status == 500 && failed.body.count == OutboundClient.otherBodyLimit)
    }

    @Test func anAnswerThatTricklesIsCutOffAtTheTimeLimit() async throws {
        let server = try ScriptedServer { _, _ in .trickle(headers: ["Content-Type: text/plain"], chunk: Array("a".utf8), interval: .milliseconds(50)) }
        defer { server.stop() }
        let started = ContinuousClock.now
        await #expect(throws: OutboundError.timedOut) {
            try await Self.client(server, timeout: .milliseconds(500), byteLimit: 1_000_000).send(OutboundRequest(.get, server.url("/slow")))
        }
        // A bound, not a speed: well past the limit (a starved machine once took 26 s for it), and the trickle never ends.
        #expect(ContinuousClock.now - started < .seconds(90))
    }

    @Test func plainHTTPGoesOnlyToLoopbackWhenTheClientIsSecureElsewhere() async throws {
        let server = try ScriptedServer { _, _ in .answer(status: "201 Created") }
        defer { server.stop() }
        let policy = AddressPolicy(ports: [server.port, 80, 443], allowsLoopback: true)
        let client = OutboundClient(policy: policy, schemes: ["https", "http"], timeout: Self.deadline, byteLimit: 100, secureUnlessLoopback: true)
        #expect(try await client.send(OutboundRequest(.post, server.url("/push"), body: [])).status == 201)
        await #expect(throws: OutboundError.invalidAddress) { try await client.pinned("http://93.184.215.14/push") }
        #expect(try await client.pinned("https://93.184.215.14/push").address == "93.184.215.14")
    }
}
