import ParlorNotifications
import ServiceLifecycle

/// Web Push, until graceful shutdown: whom each message is pushed to, and the queue that sends the pushes. Pushes
/// still waiting then are dropped: a notification that comes after a restart is worth less than a quick stop.
struct PushService: Service {
    let queue: PushQueue
    let notifier: PushNotifier

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await notifier.run() }
                group.addTask { await queue.run() }
            }
        }
    }
}
