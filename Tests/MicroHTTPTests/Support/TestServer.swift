import Logging
@testable import MicroHTTP

/// Runs `body` against a real server on 127.0.0.1 and an ephemeral port, then shuts it down.
func withServer<Result>(
    _ router: Router,
    configure: (inout ServerConfiguration) -> Void = { _ in },
    logs: LogRecorder = LogRecorder(),
    _ body: (HTTPServer, UInt16) async throws -> Result
) async throws -> Result {
    var configuration = ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.threads = 2
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, router: router, logger: logs.logger)
    try server.start()
    do {
        let result = try await body(server, server.port!)
        await server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        await server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}
