import ParlorFeeds
import ServiceLifecycle

/// The feed poller, until graceful shutdown: a fetch in flight then is dropped, not counted as a failure.
struct FeedService: Service {
    let poller: FeedPoller

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await poller.run()
        }
    }
}
