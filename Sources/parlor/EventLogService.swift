import ParlorPostgres
import ServiceLifecycle

/// Reads the shared database's event log for this instance's live pages, as a service until graceful shutdown.
struct EventLogService: Service {
    let bus: PostgresEventBus

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await bus.run()
        }
    }
}
