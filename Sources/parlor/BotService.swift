import ParlorBots
import ServiceLifecycle

/// Parlor Bot acting on what it observes, for as long as Parlor serves; graceful shutdown ends it.
struct BotService: Service {
    let bot: ParlorBot

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await bot.run()
        }
    }
}
