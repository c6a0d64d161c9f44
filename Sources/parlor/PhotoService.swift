import ParlorImages
import ServiceLifecycle

/// Messages' photos made into their versions for as long as Parlor serves: what the last run left pending
/// first, then what is sent. Graceful shutdown ends it; a photo under way stays pending for the next start.
struct PhotoService: Service {
    let worker: PhotoWorker

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await worker.run()
        }
    }
}
