// Parlor's HTTP front under the same load as the C baseline in baseline/:
//   parlor-bench-server http <port> <page-file> [prepared|bytes]   GET / answers the page
//   parlor-bench-server sse <port> <heartbeat-seconds> [worker|task]  the sseload protocol:
//       GET /events (stream), POST /send msg=... (broadcast), GET /stats (events=N)
import ServerSentEvents
import ByteOutput
import Dispatch
import Logging
import MicroHTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

@main
enum BenchServer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4, let port = UInt16(arguments[2]) else {
            print("usage: parlor-bench-server http <port> <page-file> [prepared|bytes] | sse <port> <heartbeat-seconds> [worker|task]")
            exit(2)
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .warning  // the figures are for the HTTP front, not for log formatting
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.connectionLimit = 20_000

        var router = Router()
        switch arguments[1] {
        case "http":
            let page = try OutputBuffer(contentsOfFile: arguments[3])
            if arguments.count > 4, arguments[4] == "bytes" {
                // Built per request: the path a rendered page takes.
                router.get("/") { _ in .html(page) }
            } else {
                let prepared = try PreparedResponse(headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
                router.get("/") { _ in .prepared(prepared) }
            }
        case "sse":
            configuration.heartbeatInterval = .seconds(Int64(arguments[3]) ?? 15)
            let broadcaster = Broadcaster()
            router.get("/events") { request in
                let stream = EventStream(lastEventID: request.lastEventID)
                broadcaster.add(stream)
                return .eventStream(stream)
            }
            if arguments.count > 4, arguments[4] == "task" {
                // Published from an async handler, off the polling threads, as Parlor's own routes
                // publish. Measured: more CPU per broadcast than publishing on the polling thread,
                // because both polling threads are then woken over and over while the queue fills.
                router.post("/send") { request async in
                    let sequence = broadcaster.publish(request.form["msg"] ?? "")
                    return .text("ok \(sequence)\n")
                }
            } else {
                // Published on the libmicrohttpd thread that reads the POST, as the C broadcaster does.
                router.post("/send") { request in
                    let sequence = broadcaster.publish(request.form["msg"] ?? "")
                    return .text("ok \(sequence)\n")
                }
            }
            router.get("/stats") { _ in .text("clients=\(broadcaster.count) events=\(broadcaster.published)\n") }
        default:
            print("unknown mode \(arguments[1])")
            exit(2)
        }

        let server = HTTPServer(configuration: configuration, router: router, logger: logger)
        try server.start()
        await SignalWaiter.wait()
        await server.shutdown(gracePeriod: .seconds(2))
    }
}

/// Every open stream; one encoded event per broadcast, shared by all of them.
final class Broadcaster: Sendable {
    private let streams = EventStreamGroup()
    private let sequence = Atomic<Int>(0)

    var count: Int { streams.count }
    var published: Int { sequence.load(ordering: .relaxed) }

    func add(_ stream: EventStream) { streams.add(stream) }

    /// The same ~400-byte fragment the C broadcaster sends, with the `seq=N;` marker sseload reads.
    func publish(_ message: String) -> Int {
        let number = sequence.wrappingAdd(1, ordering: .relaxed).newValue
        let text = String(message.prefix(160))
        let fragment = "<li class=\"msg msg-in\" id=\"m-\(number)\" data-k=\"seq=\(number);\">"
            + "<img class=\"avatar\" src=\"/a/42.png\" alt=\"\" width=\"32\" height=\"32\">"
            + "<div class=\"bubble\"><span class=\"author\">Alice &amp; Bob</span>"
            + "<p class=\"text\">\(text)</p><time datetime=\"2025-05-20T10:15:00Z\">10:15</time>"
            + "<span class=\"status\" aria-label=\"delivered\">&#10003;</span></div></li>"
        let event = ServerSentEvent(id: "\(number)", event: "message", data: fragment).encoded
        // Like the C broadcaster: walk the streams under the group's lock, in the order they came.
        streams.broadcast(event)
        return number
    }
}

/// Waits for SIGINT or SIGTERM through dispatch sources (no Swift code in a signal handler).
enum SignalWaiter {
    static func wait() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (signals, continuation) = AsyncStream<Void>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        for await _ in signals { break }
        withExtendedLifetime(sources) {}
    }
}
