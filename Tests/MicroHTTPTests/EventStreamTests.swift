import Synchronization
import HTTPTestSupport
import Testing
@testable import MicroHTTP
@testable import ServerSentEvents

@Suite struct EventStreamTests {
    /// `/events` opens a stream, replays from `Last-Event-ID` like an application would, and
    /// registers it with `hub`.
    static func router(_ hub: StreamHub) -> Router {
        var router = Router()
        router.get("/events") { request in
            let stream = EventStream(lastEventID: request.lastEventID)
            if let last = request.lastEventID {
                stream.send(ServerSentEvent(id: "\((Int(last) ?? 0) + 1)", event: "replay", data: "missed after \(last)"))
            }
            hub.add(stream)
            return .eventStream(stream)
        }
        return router
    }

    static func openStream(_ port: UInt16, headers: [String] = []) async throws -> RawClient {
        let client = try RawClient(port: port)
        try client.send(RawClient.request("GET", "/events", headers: ["Accept: text/event-stream"] + headers))
        let head = try await client.readStreamHead()
        #expect(head.status == 200)
        _ = try await client.read(until: ": connected\n\n")
        return client
    }

    @Test func streamHasItsHeadersAndFramesEventsCorrectly() async throws {
        let hub = StreamHub()
        try await withServer(Self.router(hub)) { server, port in
            let client = try RawClient(port: port)
            try client.send(RawClient.request("GET", "/events"))
            let head = try await client.readStreamHead()
            #expect(head.header("Content-Type") == "text/event-stream")
            #expect(head.header("Cache-Control") == "no-store, no-transform")
            #expect(head.header("X-Accel-Buffering") == "no")
            #expect(try await client.read(until: "\n\n") == "retry: 2000\n: connected\n\n")

            #expect(await eventually { server.openEventStreams == 1 })
            hub.publishOneByOne(ServerSentEvent(id: "7", event: "stream", data: "<li>line one</li>\n<li>line two</li>"))
            let event = try await client.read(until: "\n\n")
            #expect(event == "id: 7\nevent: stream\ndata: <li>line one</li>\ndata: <li>line two</li>\n\n")
        }
    }

    @Test func lastEventIDReachesTheHandler() async throws {
        let hub = StreamHub()
        try await withServer(Self.router(hub)) { _, port in
            let client = try RawClient(port: port)
            try client.send(RawClient.request("GET", "/events", headers: ["Last-Event-ID: 41"]))
            _ = try await client.readStreamHead()
            let text = try await client.read(until: "missed after 41\n\n")
            #expect(text.hasSuffix("id: 42\nevent: replay\ndata: missed after 41\n\n"))
            #expect(hub.all.first?.lastEventID == "41")
        }
    }

    @Test func idleStreamsGetHeartbeatComments() async throws {
        let hub = StreamHub()
        try await withServer(Self.router(hub), configure: { $0.heartbeatInterval = .milliseconds(100) }) { _, port in
            let client = try await Self.openStream(port)
            _ = try await client.read(until: ": ping\n\n")
            _ = try await client.read(until: ": ping\n\n")
        }
    }

    @Test func aThousandStreamsEachReceiveOnePublishedEvent() async throws {
        // Both ends live in this process: 2,000 descriptors and then some.
        try #require(raiseOpenFileLimit() >= 2_200, "the hard limit on open files is too low for this test")
        let hub = StreamHub()
        try await withServer(Self.router(hub)) { server, port in
            var clients: [RawClient] = []
            for _ in 0..<1000 {
                let client = try RawClient(port: port, timeout: 10)
                try client.send(RawClient.request("GET", "/events"))
                clients.append(client)
            }
            #expect(await eventually(within: 20) { server.openEventStreams == 1000 })
            let accepted = hub.publish(ServerSentEvent(id: "1", event: "stream", data: "hello, everyone"))
            #expect(accepted == 1000)
            var received = 0
            for client in clients {
                #expect(try await client.readStreamHead().status == 200)
                let text = try await client.read(until: "data: hello, everyone\n\n")
                if text.contains("id: 1\nevent: stream\n") { received += 1 }
            }
            #expect(received == 1000)
        }
    }

    @Test func deadClientIsUnregisteredWithinTwoHeartbeats() async throws {
        let hub = StreamHub()
        try await withServer(Self.router(hub), configure: { $0.heartbeatInterval = .milliseconds(200) }) { server, port in
            var client: RawClient? = try await Self.openStream(port)
            #expect(await eventually { server.openEventStreams == 1 })
            // Counted in heartbeats, at the moment the close is noticed: a busy machine (the suite's
            // start) may hold back both the ticks and this test's polling, but not their order.
            let noticedAt = Mutex<Int?>(nil)
            let stream = try #require(hub.all.first)
            stream.onClose { [streams = server.streams] in
                noticedAt.withLock { $0 = streams.ticks.load(ordering: .relaxed) }
            }
            let vanishedAt = server.streams.ticks.load(ordering: .relaxed)
            client = nil  // the socket closes without a word to the server
            _ = client
            #expect(await eventually(within: 60) {
                noticedAt.withLock { $0 != nil } || server.streams.ticks.load(ordering: .relaxed) > vanishedAt + 4
            })
            let noticed = try #require(noticedAt.withLock { $0 }, "not noticed within 4 heartbeats")
            #expect(noticed - vanishedAt <= 2, "noticed after \(noticed - vanishedAt) heartbeats")
            #expect(await eventually { hub.closed.count == 1 && server.openEventStreams == 0 })
        }
    }

    @Test func aPageThatLeavesIsNoWarningInTheLog() async throws {
        // libmicrohttpd's words when a browser has gone, and one that is a real trouble.
        #expect(LibraryLog.level(of: "Failed to send the chunked response body for the request for `/events'. Error: The socket is no longer available for sending") == .debug)
        #expect(LibraryLog.level(of: "Failed to send the footers for the request for `/events'. Error: The connection was forcibly closed by remote peer") == .debug)
        #expect(LibraryLog.level(of: "Closing connection (application error generating response).") == .warning)

        let hub = StreamHub()
        let log = LogRecorder()
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, router: Self.router(hub), logger: log.logger)
        try server.start()
        var client: RawClient? = try await Self.openStream(server.port!)
        #expect(await eventually { server.openEventStreams == 1 })
        client = nil  // the page is left
        _ = client
        // Sent to the gone page until the server notices.
        for round in 0..<500 where hub.closed.count == 0 {
            hub.publish(ServerSentEvent(data: "news \(round) " + String(repeating: "x", count: 4_000)))
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(hub.closed.count == 1)
        let left = log.all.filter { line in LibraryLog.clientLeft.contains { line.message.contains($0) } }
        #expect(left.allSatisfy { $0.level == .debug }, "a page left is normal: \(left.map(\.message))")
        await server.shutdown(gracePeriod: .seconds(30))
    }

    @Test func slowClientIsCutOffWithoutDelayingOthers() async throws {
        let hub = StreamHub()
        try await withServer(Self.router(hub), configure: {
            $0.eventStreamQueueLimit = 64 * 1024
            $0.connectionTimeoutSeconds = 1
        }) { server, port in
            let slow = try RawClient(port: port, receiveBuffer: 4096)
            try slow.send(RawClient.request("GET", "/events"))  // and never reads again
            // Registered before the fast ones, so it is the hub's first stream.
            try #require(await eventually { server.openEventStreams == 1 })
            let slowStream = try #require(hub.all.first)
            let fast = [try await Self.openStream(port), try await Self.openStream(port)]
            #expect(await eventually { server.openEventStreams == 3 })

            let padding = String(repeating: "p", count: 8000)
            var published = 0
            // Bounded: 20 MB is far beyond what the kernel buffers for a reader that stopped
            // (a few MB on loopback here) plus the 64 KB queue.
            while slowStream.isOpen && published < 2500 {
                published += 1
                hub.publish(ServerSentEvent(id: "\(published)", data: "n\(published) \(padding)"))
                for client in fast {
                    // Every fast client has each event promptly, whatever the slow one does.
                    _ = try await client.read(until: "n\(published) ")
                }
            }
            #expect(!slowStream.isOpen, "the slow client was never cut off after \(published) events")
            #expect(fast.count == 2)
            hub.publish(ServerSentEvent(data: "after the cut"))
            for client in fast { _ = try await client.read(until: "after the cut") }
            // Its connection goes at the latest when it has been stuck for the connection timeout.
            #expect(await eventually(within: 20) { hub.closed.count == 1 })
            #expect(server.openEventStreams == 2)
        }
    }

    @Test func eachServerHoldsSharedEventsInItsOwnRing() async throws {
        let first = StreamHub(), second = StreamHub()
        try await withServer(Self.router(first)) { one, onePort in
            try await withServer(Self.router(second)) { two, twoPort in
                #expect(one.eventRing !== two.eventRing)
                let a = try await Self.openStream(onePort), b = try await Self.openStream(twoPort)
                #expect(await eventually { one.openEventStreams == 1 && two.openEventStreams == 1 })
                #expect(first.all.first?.ring === one.eventRing && second.all.first?.ring === two.eventRing)

                // Shared in the first server's ring, which only its streams read; the second server's stream
                // copies the bytes, so nothing either server holds can be lapped by the other's traffic.
                let event = one.eventRing.share(ServerSentEvent(id: "1", data: "to both").encoded)
                for _ in 0..<(EventRing.defaultCapacity + 1) { _ = two.eventRing.share(ServerSentEvent(data: "noise").encoded) }
                #expect(EventStream.broadcast(event, to: first.all + second.all) == 2)
                #expect(try await a.read(until: "to both\n\n").hasSuffix("id: 1\ndata: to both\n\n"))
                #expect(try await b.read(until: "to both\n\n").hasSuffix("id: 1\ndata: to both\n\n"))

                // An event not yet shared is shared in the first attached stream's server's ring.
                #expect(first.publish(ServerSentEvent(data: "again")) == 1)
                _ = try await a.read(until: "again\n\n")
            }
        }
    }

    @Test func shutdownEndsOpenStreamsCleanly() async throws {
        let hub = StreamHub()
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, router: Self.router(hub), logger: LogRecorder().logger)
        try server.start()
        var clients: [RawClient] = []
        for _ in 0..<5 { clients.append(try await Self.openStream(server.port!)) }
        #expect(await eventually { server.openEventStreams == 5 })
        hub.publish(ServerSentEvent(data: "last words"))

        // Open streams end at once instead of holding shutdown for the whole grace period.
        // The period is long so that a busy machine cannot make a correct shutdown look slow.
        let started = ContinuousClock.now
        await server.shutdown(gracePeriod: .seconds(60))
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(server.openEventStreams == 0)
        #expect(hub.closed.count == 5)
        for client in clients {
            // Queued events are flushed, then the body ends with its last chunk.
            #expect(try await client.readToEnd().contains("data: last words\n\n"))
            #expect(await client.waitForClose())
        }
        // A stopped server refuses new connections.
        #expect(throws: ClientError.self) { try RawClient(port: server.port ?? 1) }
    }

    @Test func streamsWokenWithinTheResumeWindowGoTogetherAndMissNothing() async throws {
        let hub = StreamHub()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.resumeWindow = .seconds(1)
        configuration.resumeWindowPerStream = .milliseconds(100)
        let server = HTTPServer(configuration: configuration, router: Self.router(hub), logger: LogRecorder().logger)
        try server.start()
        var clients: [RawClient] = []
        for _ in 0..<20 { clients.append(try await Self.openStream(server.port!)) }
        #expect(await eventually { server.openEventStreams == 20 })
        // The first wake after a quiet while goes at once (within the window, whoever came with it).
        let firstSent = ContinuousClock.now
        hub.publish(ServerSentEvent(id: "1", data: "first"))
        for client in clients { _ = try await client.read(until: "data: first\n\n") }
        // Right after it, every stream waits for the end of the window that wake opened (20 streams: 2 s,
        // capped at 1 s), and then each gets all that was sent meanwhile, in order.
        hub.publish(ServerSentEvent(id: "2", data: "second"))
        hub.publish(ServerSentEvent(id: "3", data: "third"))
        for client in clients {
            let text = try await client.read(until: "data: third\n\n")
            #expect(text.contains("data: second\n\nid: 3\ndata: third\n\n"))
        }
        // Measured from the first wake, which opened the window: reading the first events may take a while on a
        // busy machine, but the second wake cannot come before the window's end.
        #expect(ContinuousClock.now - firstSent >= .milliseconds(990), "woken together at the end of the window, not one by one")
        await server.shutdown(gracePeriod: .seconds(30))
        #expect(server.openEventStreams == 0)
    }

    @Test func withACloseWindowStreamsEndInStepsNotAllAtOnce() async throws {
        let hub = StreamHub()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventStreamCloseWindow = .seconds(1)
        let server = HTTPServer(configuration: configuration, router: Self.router(hub), logger: LogRecorder().logger)
        try server.start()
        var clients: [RawClient] = []
        for _ in 0..<10 { clients.append(try await Self.openStream(server.port!)) }
        #expect(await eventually { server.openEventStreams == 10 })
        let stopping = Task { await server.shutdown(gracePeriod: .seconds(60)) }
        // Ten steps a tenth of the window apart: from the first end to the last at least 0.9 s, however slow
        // the machine (the steps sleep; nothing can make them faster).
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant?
        // A bound, not a speed: under the whole suite on two cores the ten steps once took longer than 30 s.
        let deadline = ContinuousClock.now + .seconds(90)
        while last == nil, ContinuousClock.now < deadline {
            let closed = hub.closed.count
            if closed > 0, first == nil { first = .now }
            if closed == 10 { last = .now }
            try await Task.sleep(for: .milliseconds(5))
        }
        await stopping.value
        let spread = try #require(first.flatMap { start in last.map { $0 - start } })
        #expect(spread >= .milliseconds(800), "the streams ended over \(spread)")
        for client in clients { #expect(await client.waitForClose()) }
    }
}
