import MicroHTTP
import ServiceLifecycle

/// Runs an ``HTTPServer`` as a service: start, wait for the graceful-shutdown signal, then drain and stop.
struct HTTPService: Service {
    let server: HTTPServer
    let gracePeriod: Duration
    /// How long the server keeps serving after readiness went to 503, so that a proxy checking `/readyz`
    /// stops sending before connections are refused.
    let drainDelay: Duration
    /// Called first on shutdown: readiness goes to 503.
    let startDraining: @Sendable () -> Void

    func run() async throws {
        try server.start()
        // Returns on SIGTERM/SIGINT, or throws when the group is cancelled: stop either way.
        try? await gracefulShutdown()
        startDraining()
        if drainDelay > .zero { try? await Task.sleep(for: drainDelay) }
        await server.shutdown(gracePeriod: gracePeriod)
    }
}
