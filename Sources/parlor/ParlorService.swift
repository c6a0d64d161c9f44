import ServiceLifecycle

/// Parlor on a running store: the schema, the app and its own group of services (``Serve``).
struct ParlorService: Service {
    let body: @Sendable () async throws -> Void

    func run() async throws {
        try await body()
    }
}
