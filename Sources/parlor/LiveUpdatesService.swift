import ParlorWeb
import ServiceLifecycle

/// Runs the live pages (events from the bus to every open page) as a service until graceful shutdown.
struct LiveUpdatesService: Service {
    let app: ParlorApp

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await app.runLiveUpdates()
        }
    }
}
