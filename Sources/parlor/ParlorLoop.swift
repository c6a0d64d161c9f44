import ServiceLifecycle

/// One of Parlor's long-running loops as a service of its own, named in the service group's logs: it runs until
/// graceful shutdown cancels it. ``WebFront`` makes those of the web front, and `parlor serve` and the web tests run
/// the same ones.
struct ParlorLoop: Service, CustomStringConvertible {
    /// What the logs call it ("live pages", "push queue").
    let description: String
    /// The loop; it ends when its task is cancelled.
    let body: @Sendable () async -> Void

    init(_ name: String, _ body: @escaping @Sendable () async -> Void) {
        description = name
        self.body = body
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await body()
        }
    }
}
