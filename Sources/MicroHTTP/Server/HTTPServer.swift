import ServerSentEvents
import CMicroHTTPD
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: a pool of polling threads on epoll, keep-alive,
/// suspended connections for `async` handlers and event streams, and an orderly shutdown.
public final class HTTPServer: Sendable {
    /// The configuration it was created with.
    public let configuration: ServerConfiguration
    let router: Router
    let logger: Logger
    let requestIDs = RequestIDs()
    let streams = EventStreamRegistry()
    /// Resumes suspended connections in batches; nil when the configuration's window is zero.
    let resumer: ConnectionResumer?
    /// Where events shared by many of this server's streams are held once. Share an event here
    /// (``EventRing/share(_:)``) before sending it to many of them.
    public let eventRing: EventRing
    let pendingReplies = PendingReplies()
    /// Streamed uploads in progress, within the configured limits.
    let uploadSlots: UploadSlots
    /// Requests between their first callback and libmicrohttpd's "completed" notice
    /// (event streams included).
    let requestsInFlight = Atomic<Int>(0)
    /// Work of suspended requests (async handlers, admissions) not yet returned, even once shutdown answered them.
    let suspendedWork = Atomic<Int>(0)
    /// Set when shutdown begins: new connections are closed as soon as they are accepted.
    let refusingConnections = Atomic<Bool>(false)

    private enum State {
        case idle
        case running(DaemonHandle, port: UInt16, heartbeat: Task<Void, Never>)
        case stopped
    }

    private let state = Mutex<State>(.idle)

    /// Creates a server; call ``start()`` to listen. `eventRing` is given when whoever publishes must share
    /// events in it before the server exists (the router's handlers are built first); by default the server
    /// makes its own.
    /// Told of every answered request (metrics), when given.
    let observer: (any RequestObserver)?

    public init(
        configuration: ServerConfiguration = ServerConfiguration(), router: Router, logger: Logger, eventRing: EventRing = EventRing(),
        observer: (any RequestObserver)? = nil
    ) {
        self.observer = observer
        self.configuration = configuration
        uploadSlots = UploadSlots(total: configuration.uploadsInProgress, perAddress: configuration.uploadsInProgressPerAddress)
        self.eventRing = eventRing
        resumer = configuration.resumeWindow > .zero
            ? ConnectionResumer(window: configuration.resumeWindow, perStream: configuration.resumeWindowPerStream) { [streams] in streams.count } : nil
        self.router = router
        self.logger = logger
    }

    /// The port it listens on (the real one when configured with 0), or nil when not running.
    public var port: UInt16? {
        state.withLock { if case .running(_, let port, _) = $0 { port } else { nil } }
    }

    /// Event streams currently open.
    public var openEventStreams: Int { streams.count }

    /// Starts listening. Throws if the address cannot be bound or the configuration is wrong.
    public func start() throws(MicroHTTPError) {
        guard state.withLock({ if case .idle = $0 { true } else { false } }) else {
            throw .invalidConfiguration("a server starts once; create a new one to listen again")
        }
        try configuration.validate()
        var address = try SocketAddress(host: configuration.host, port: configuration.port)
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }

        // The daemon holds this server until stop: released after MHD_stop_daemon.
        let me = Unmanaged.passRetained(self).toOpaque()
        let daemon: OpaquePointer? = address.withSockaddr { sockaddr in
            var options: [MHD_OptionItem] = [
                // First, so that every later message already goes to the server's log.
                MHD_OptionItem(option: .EXTERNAL_LOGGER,
                               value: parlor_mhd_log_function(), ptr_value: me),
                MHD_OptionItem(option: .UNESCAPE_CALLBACK, value: parlor_mhd_unescape_function(), ptr_value: nil),
                MHD_OptionItem(option: .URI_LOG_CALLBACK, value: parlor_mhd_raw_target_function(), ptr_value: nil),
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(mutating: sockaddr)),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
                MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: configuration.perAddressConnectionLimit, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
                MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: configuration.listenBacklog, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimit, ptr_value: nil),
                MHD_OptionItem(option: .NOTIFY_COMPLETED,
                               value: unsafeBitCast(Callbacks.requestCompleted, to: Int.self), ptr_value: me),
            ]
            if configuration.threads > 1 {
                options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil))
            }
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return options.withUnsafeBufferPointer { options in
                parlor_mhd_start_daemon(flags, configuration.port, Callbacks.acceptPolicy, me,
                                        Callbacks.access, me, options.baseAddress)
            }
        }
        guard let daemon else {
            Unmanaged<HTTPServer>.fromOpaque(me).release()
            throw .startFailed("could not listen on \(configuration.host):\(configuration.port) (in use, or not an address of this machine?)")
        }
        let port = parlor_mhd_bound_port(daemon)
        resumer?.start()
        let heartbeat = Task.detached { [streams, interval = configuration.heartbeatInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                streams.heartbeat()
            }
        }
        state.withLock { $0 = .running(DaemonHandle(raw: daemon), port: port, heartbeat: heartbeat) }
        logger.notice("listening", metadata: [
            "address": "\(configuration.host):\(port)", "threads": "\(configuration.threads)",
            "connection-limit": "\(configuration.connectionLimit)",
        ])
    }

    /// Stops in order: new connections are closed on arrival, every event stream ends after what it has queued,
    /// requests in flight get up to `gracePeriod` to finish (then 503), and the daemon stops.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        let running = state.withLock { state -> (DaemonHandle, Task<Void, Never>)? in
            guard case .running(let daemon, _, let heartbeat) = state else { return nil }
            state = .stopped
            return (daemon, heartbeat)
        }
        guard let (daemon, heartbeat) = running else { return }
        heartbeat.cancel()
        // Not MHD_quiesce_daemon: in epoll mode with a thread pool it races the workers over
        // the listening socket and libmicrohttpd 0.9.75 aborts the process when it loses.
        refusingConnections.store(true, ordering: .releasing)
        // Within the grace, at most half of it.
        await streams.closeAll(spreadOver: min(configuration.eventStreamCloseWindow, gracePeriod / 2))

        let deadline = ContinuousClock.now + gracePeriod
        await waitForRequestsInFlight(until: deadline)
        // Whatever is still waiting gets a 503 and is resumed: libmicrohttpd must never be
        // stopped while a connection is suspended.
        for reply in pendingReplies.closeAndTakeAll() {
            reply.answerOnce { answerShuttingDown(reply) }
        }
        await waitForRequestsInFlight(until: ContinuousClock.now + .seconds(1))
        if streams.count > 0 {
            logger.warning("event streams still open at shutdown", metadata: ["count": "\(streams.count)"])
        }
        // Whatever waits to be resumed goes first: the daemon never stops with a connection suspended there.
        resumer?.stop()
        MHD_stop_daemon(daemon.raw)
        Unmanaged.passUnretained(self).release()
        logger.notice("stopped")
    }

    /// Async handlers whose work has not returned yet (for tests: a late answer after shutdown is done with).
    package var handlersRunning: Int { suspendedWork.load(ordering: .acquiring) }

    /// Answers a suspended request with 503 and resumes its connection.
    func answerShuttingDown(_ reply: PendingReply) {
        let error = HTTPError(.serviceUnavailable, "The server is restarting. Please try again.")
        _ = queue(errorResponse(error, id: reply.id, path: reply.path), on: reply.connection, id: reply.id, method: reply.method, path: reply.loggedPath, route: reply.route,
                  started: reply.started)
        resume(reply.connection)
    }

    /// Resumes a suspended connection, with others when they come close together (``ConnectionResumer``).
    func resume(_ connection: ConnectionHandle) {
        if let resumer, resumer.request(connection) { return }
        MHD_resume_connection(connection.raw)
    }

    private func waitForRequestsInFlight(until deadline: ContinuousClock.Instant) async {
        while requestsInFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
