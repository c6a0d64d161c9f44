import ParlorEvents
import ParlorNotifications
import ParlorWeb
import ServiceLifecycle

/// Web Push and presence, until graceful shutdown: whom each message is pushed to, the queue that sends the pushes,
/// and the reports of who is around here. Pushes still waiting then are dropped: a notification that comes after a
/// restart is worth less than a quick stop.
struct PushService: Service {
    let queue: PushQueue
    let notifier: PushNotifier
    let presence: PresenceReporter
    /// Bots' webhooks, and the router their replies go through.
    let webhooks: BotWebhooks
    let previews: LinkPreviewer
    let router: EventRouter

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await webhooks.run(router: router) }
                group.addTask { await previews.run(router: router) }
                group.addTask { await notifier.run() }
                group.addTask { await queue.run() }
                group.addTask { await presence.run() }
            }
        }
    }
}
