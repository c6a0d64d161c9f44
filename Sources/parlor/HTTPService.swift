import MicroHTTP
import ServiceLifecycle

/// Runs an ``HTTPServer`` as a service: start, wait for the graceful-shutdown signal, stop.
struct HTTPService: Service {
    let server: HTTPServer
    let gracePeriod: Duration

    func run() async throws {
        try server.start()
        // Returns on SIGTERM/SIGINT, or throws when the group is cancelled: stop either way.
        try? await gracefulShutdown()
        await server.shutdown(gracePeriod: gracePeriod)
    }
}
