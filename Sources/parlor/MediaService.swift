import ParlorWeb
import ServiceLifecycle

/// The media folder's upkeep, once serving has started (a large folder does not hold up the first
/// request): files no image names (a crash between file and row, a deleted photo) are swept, then again
/// every hour, until graceful shutdown.
struct MediaService: Service {
    let app: ParlorApp

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await app.sweepMedia()
                try? await Task.sleep(for: .seconds(3_600))
            }
        }
    }
}
