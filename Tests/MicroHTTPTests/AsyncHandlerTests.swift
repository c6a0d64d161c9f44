import Synchronization
import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// A gate an async handler waits on until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var waiting: Int { state.withLock { $0.waiters.count } }
}

@Suite struct AsyncHandlerTests {
    @Test func asyncHandlerAnswersAfterItsAwait() async throws {
        var router = Router()
        router.get("/slow") { request in
            try await Task.sleep(for: .milliseconds(20))
            return .text("waited for \(request.query["who"] ?? "?")")
        }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            #expect(try await client.exchange("GET", "/slow?who=db").text == "waited for db")
            // Keep-alive survives a suspended request.
            #expect(try await client.exchange("GET", "/slow?who=again").text == "waited for again")
        }
    }

    /// A route tried at once on the connection's thread, answered by its async handler only when the first
    /// try gives nil; a failure of the first try is answered as any handler's.
    @Test func anImmediateHandlerAnswersAtOnceOrHandsOverToTheAsyncOne() async throws {
        let handedOver = Atomic(0)
        var router = Router()
        router.get("/page/{mode}", immediately: { request in
            switch request.parameters["mode"] {
            case "now": return .text("at once")
            case "fail": throw HTTPError(.notFound, "No such page.")
            default: return nil
            }
        }) { request in
            handedOver.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(1))
            return .text("later for \(request.parameters["mode"] ?? "?")")
        }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            #expect(try await client.exchange("GET", "/page/now").text == "at once")
            #expect(handedOver.load(ordering: .relaxed) == 0)
            #expect(try await client.exchange("GET", "/page/wait").text == "later for wait")
            #expect(handedOver.load(ordering: .relaxed) == 1)
            // Keep-alive holds across both kinds of answer.
            #expect(try await client.exchange("GET", "/page/now").text == "at once")
            let failed = try await client.exchange("GET", "/page/fail")
            #expect(failed.status == 404 && handedOver.load(ordering: .relaxed) == 1)
        }
    }

    @Test func waitingHandlersHoldNoServerThread() async throws {
        let gate = Gate()
        var router = Router()
        router.get("/wait") { _ in
            await gate.wait()
            return .text("released")
        }
        router.get("/quick") { _ in .text("quick") }
        // One polling thread only: if a waiting handler held it, /quick could never answer.
        try await withServer(router, configure: { $0.threads = 1 }) { _, port in
            let waiting = try (0..<20).map { _ in try RawClient(port: port) }
            for client in waiting { try client.send(RawClient.request("GET", "/wait")) }
            #expect(await eventually { gate.waiting == 20 })
            #expect(try await RawClient(port: port).exchange("GET", "/quick").text == "quick")
            gate.open()
            for client in waiting { #expect(try await client.readResponse().text == "released") }
        }
    }

    @Test func asyncHandlerErrorsBecomeErrorPages() async throws {
        var router = Router()
        router.post("/fail") { _ async throws -> Response in
            try await Task.sleep(for: .milliseconds(1))
            throw HTTPError(.unprocessableContent, "Write something first.")
        }
        try await withServer(router) { _, port in
            let response = try await RawClient(port: port).exchange(
                "POST", "/fail", headers: ["Content-Type: application/x-www-form-urlencoded"], body: "body=")
            #expect(response.status == 422)
            #expect(response.text.contains("Write something first."))
        }
    }

    @Test func shutdownAnswers503ToHandlersThatOutliveTheGracePeriod() async throws {
        let gate = Gate()
        var router = Router()
        router.get("/stuck") { _ in
            await gate.wait()
            return .text("too late")
        }
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, router: router, logger: LogRecorder().logger)
        try server.start()
        let client = try RawClient(port: server.port!)
        try client.send(RawClient.request("GET", "/stuck"))
        #expect(await eventually { gate.waiting == 1 })
        await server.shutdown(gracePeriod: .milliseconds(100))
        #expect(try await client.readResponse().status == 503)
        gate.open()  // the late answer must not touch the stopped daemon
        #expect(await eventually { server.handlersRunning == 0 }, "the handler returned and its late answer was dropped")
    }
}
