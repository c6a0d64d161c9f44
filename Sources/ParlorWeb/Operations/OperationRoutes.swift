import ByteOutput
import MicroHTTP
import Logging
import ParlorDomain
import ParlorLive

/// What operators and proxies ask of Parlor: whether it is alive, whether it is ready for work, and its
/// metrics.
public struct OperationRoutes: Sendable {
    public struct Dependencies: Sendable {
        let readiness: Readiness
        /// Asked for a read to tell whether it answers.
        let store: any ChatReads
        let metrics: ParlorMetrics
        /// Counted for `/metrics`.
        let live: EventHandler
        /// The addresses `/metrics` answers (the person's, behind a trusted proxy).
        let metricsAddresses: Set<String>
        let trustedProxies: Set<String>
        let logger: Logger

        public init(
            readiness: Readiness, store: any ChatReads, metrics: ParlorMetrics, live: EventHandler, metricsAddresses: Set<String>,
            trustedProxies: Set<String>, logger: Logger
        ) {
            self.readiness = readiness
            self.store = store
            self.metrics = metrics
            self.live = live
            self.metricsAddresses = metricsAddresses
            self.trustedProxies = trustedProxies
            self.logger = logger
        }
    }

    let dependencies: Dependencies
    private var metrics: ParlorMetrics { dependencies.metrics }
    private var logger: Logger { dependencies.logger }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) throws {
        // Alive: never touches the store. Prepared with the common fields, so the router adds none and
        // answers from the shared response.
        var healthHeaders = SecurityHeaders.all
        healthHeaders.add("Content-Type", "text/plain; charset=utf-8")
        let healthy = try PreparedResponse(headers: healthHeaders, body: .init("ok\n".utf8))
        router.get("/healthz") { _ in .prepared(healthy) }
        // Ready: not shutting down, and the store answers a read.
        router.get("/readyz") { [self] request in
            guard !dependencies.readiness.isDraining else { return .text("draining\n", status: .serviceUnavailable) }
            // Another instance's messages would not reach this one's pages.
            if let busHealth = dependencies.readiness.busHealth, !busHealth() { return .text("the event log's listener is not connected\n", status: .serviceUnavailable) }
            do {
                // A database that does not answer leaves the read waiting for a connection: two seconds at most.
                guard try await Self.within(.seconds(2), { [store = dependencies.store] in _ = try await store.user(UserID(0)) }) else {
                    logger.error("not ready: the store does not answer within 2 s", metadata: ["request": "\(request.id)"])
                    return .text("the store does not answer\n", status: .serviceUnavailable)
                }
                return .text("ready\n")
            } catch {
                logger.error("not ready: the store does not answer", metadata: ["request": "\(request.id)", "error": "\(error)"])
                return .text("the store does not answer\n", status: .serviceUnavailable)
            }
        }
        router.get("/metrics") { [self] request in
            // Only to the addresses named (the person's, behind a trusted proxy): others learn nothing, not even that it exists.
            guard let exposition = metrics.exposition, dependencies.metricsAddresses.contains(RequestOrigin(request, trustedProxies: dependencies.trustedProxies).address) else {
                throw HTTPError(.notFound)
            }
            metrics.sampleProcess(openEventStreams: dependencies.live.listenerCount)
            var response = Response(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: .bytes(OutputBuffer(exposition()))
            )
            response.headers.add("Cache-Control", "no-store")
            return response
        }
    }

    /// Whether `work` finished within `limit` (false: it is cancelled and left behind).
    static func within(_ limit: Duration, _ work: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await work()
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
    }
}
