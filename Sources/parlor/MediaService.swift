import ParlorWeb
import ServiceLifecycle

/// The media folder's upkeep: sweeps files no image names once serving has started (listing a large
/// folder does not hold up the first request), then stays until graceful shutdown.
struct MediaService: Service {
    let app: ParlorApp

    func run() async throws {
        await app.sweepMedia()
        try? await gracefulShutdown()
    }
}
