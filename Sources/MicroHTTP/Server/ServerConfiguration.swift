#if canImport(Glibc)
import Glibc
#endif

/// How an ``HTTPServer`` listens and what it allows. Every field has a documented default
/// suited to a chat server holding many idle event streams.
public struct ServerConfiguration: Sendable {
    /// Address to listen on: an IPv4 or IPv6 literal. Default "127.0.0.1".
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (see ``HTTPServer/port``). Default 8080.
    public var port: UInt16 = 8080
    /// Threads polling connections. Default: the number of online cores.
    public var threads: Int = ServerConfiguration.onlineCores
    /// Most connections at once. libmicrohttpd's own default (about 1,020) silently stalls
    /// the rest, so Parlor sets it explicitly. Default 16,000 (mind `ulimit -n`).
    public var connectionLimit: Int = 16_000
    /// Most connections from one address; 0 means no limit. Default 0, because behind a
    /// reverse proxy every connection comes from the proxy.
    public var perAddressConnectionLimit: Int = 0
    /// Seconds an idle connection is kept; 0 keeps it forever. Event streams that are waiting
    /// for news are not idle in this sense and are never cut by it. Default 60.
    public var connectionTimeoutSeconds: Int = 60
    /// Pending connections the kernel may queue before `accept`. Default 4,096.
    public var listenBacklog: Int = 4_096
    /// Memory libmicrohttpd may use per connection for headers and buffers. It bounds the
    /// largest request head and sets most of the cost of an idle event stream. Default 16 KiB.
    public var connectionMemoryLimit: Int = 16 * 1024
    /// Largest body a route accepts unless it says otherwise. Default 64 KiB.
    public var defaultBodyLimit: Int = 64 * 1024
    /// Seconds between heartbeat comments on every event stream; they keep proxies from
    /// closing idle streams and are how dead clients are found. Default 15.
    public var heartbeatInterval: Duration = .seconds(15)
    /// Bytes that may wait for one slow event-stream client before it is cut off. Default 1 MiB.
    public var eventStreamQueueLimit: Int = 1024 * 1024
    /// At shutdown, event streams are ended in steps over this long (at most half the grace period), so
    /// the pages do not all reconnect in the same instant. Zero: all at once.
    public var eventStreamCloseWindow: Duration = .zero
    /// Suspended connections (idle event streams with news, requests whose handler answered) resumed within a
    /// window of the last resume wait for its end and go together: libmicrohttpd looks through every
    /// suspended connection at each resume, so with thousands of open pages resuming them one by one costs
    /// more than sending. The window is 2 µs per open event stream, at most this. Zero: each at once.
    /// Default 25 ms (reached at 12,500 open pages).
    public var resumeWindow: Duration = .milliseconds(25)
    /// How much the resume window grows with each open event stream (up to ``resumeWindow``). Default 2 µs.
    public var resumeWindowPerStream: Duration = .microseconds(2)
    /// Milliseconds browsers wait before reconnecting a dropped event stream (`retry:`). Default 2,000.
    public var eventStreamRetryMilliseconds: Int = 2_000

    /// Where routes that stream uploads write them while a request lasts. Default: `parlor-uploads` in the
    /// system's temporary folder.
    public var uploadFolder: String = ServerConfiguration.temporaryFolder + "/parlor-uploads"

    /// Proxies whose `X-Forwarded-For` is believed (``ClientAddress``): the per-address upload limit counts
    /// the client behind them, not the proxy. Default: none.
    public var trustedProxies: Set<String> = []
    /// Most streamed uploads in progress at once, from anyone; past it 503 with `Retry-After`. Default 64.
    public var uploadsInProgress: Int = 64
    /// Most streamed uploads in progress at once from one client address. Default 4.
    public var uploadsInProgressPerAddress: Int = 4
    /// A request refused before its body (an upload without a session, say) has a body of at most this many
    /// bytes read and thrown away before the answer, so that a browser sending it sees the answer rather than a
    /// reset connection; a larger or unknown body (or `Expect: 100-continue`) is answered at once and the
    /// connection closed. Default 1 MiB.
    public var refusedBodyDrainLimit: Int = 1024 * 1024

    /// The defaults.
    public init() {}

    static var temporaryFolder: String {
        guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
        return String(cString: value)
    }

    /// The number of online cores, at least 1.
    public static var onlineCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    func validate() throws(MicroHTTPError) {
        guard threads >= 1 else { throw .invalidConfiguration("threads must be at least 1") }
        guard connectionLimit >= 1 else { throw .invalidConfiguration("the connection limit must be at least 1") }
        guard perAddressConnectionLimit >= 0 else { throw .invalidConfiguration("the per-address limit cannot be negative") }
        guard connectionTimeoutSeconds >= 0 else { throw .invalidConfiguration("the connection timeout cannot be negative") }
        guard listenBacklog >= 1 else { throw .invalidConfiguration("the listen backlog must be at least 1") }
        guard connectionMemoryLimit >= 4096 else { throw .invalidConfiguration("the connection memory limit must be at least 4096 bytes") }
        guard defaultBodyLimit >= 0 else { throw .invalidConfiguration("the body limit cannot be negative") }
        guard heartbeatInterval > .zero else { throw .invalidConfiguration("the heartbeat interval must be positive") }
        guard uploadsInProgress >= 1, uploadsInProgressPerAddress >= 1 else { throw .invalidConfiguration("upload limits must be at least 1") }
        guard refusedBodyDrainLimit >= 0 else { throw .invalidConfiguration("the drain limit cannot be negative") }
        guard resumeWindow >= .zero, resumeWindow <= .seconds(1) else {
            throw .invalidConfiguration("the resume window must be 0 to 1 second")
        }
        guard eventStreamQueueLimit >= 1024 else { throw .invalidConfiguration("the event stream queue limit must be at least 1024 bytes") }
    }
}
