import ParlorLive
import ServiceLifecycle

/// Runs the live pages (events from the bus to every open page) as a service until graceful shutdown.
struct LiveUpdatesService: Service {
    let live: EventHandler

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await live.run()
        }
    }
}
