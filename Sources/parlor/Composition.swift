import Clocks
import Foundation
import Logging
import OutboundHTTP
import ParlorBots
import ParlorDomain
import ParlorFeeds
import ParlorFeedsHTTP
import ParlorImages
import ParlorTemplates
import ParlorWeb

/// Parlor on its stores: the web front, Parlor Bot, the feed poller, the media upkeep and the readers of what other
/// processes and instances logged. This one function builds them for `parlor serve` and for the web tests (as an
/// application's builder serves its executable and its tests), so both run the same services in the same order.
struct Composition {
    /// What the caller chooses; everything else is Parlor's own.
    struct Settings {
        var web: WebConfiguration
        var images: any ImageService
        var clock: any WallClock = SystemClock()
        /// Times what waits and ages (typing, presence, pacing, retries, rounds, the logs' reads, the media upkeep).
        var timer = AnyClock(ContinuousClock())
        var metrics = ParlorMetrics()
        var botReadDelay: Duration = .seconds(1)
        var botReplyDelay: Duration = .seconds(2)
        var feeds: Feeds
    }

    /// How the feed poller fetches and how much it does a round.
    struct Feeds {
        var fetcher: any FeedFetcher
        var minimumInterval: TimeInterval
        var defaultInterval: TimeInterval
        var postLimit: Int
        var round: Duration

        /// As `parlor serve` checks feeds unless told otherwise: the defaults of its feed options, which are the one
        /// place they are written.
        static var standard: Feeds {
            guard let options = try? FeedOptions.parse([]) else { preconditionFailure("the feed options' defaults pass their own checks") }
            return options.composed
        }
    }

    /// Why Parlor cannot start on these stores.
    enum Failure: Error {
        /// Every mistake with its file and line.
        case templates(TemplateLoadError)
        case front(any Error)
        case bot(any Error)
        case feedsAccount(any Error)
    }

    let app: WebFront
    /// Nil while Parlor Bot is deactivated (it stays quiet until it is reactivated and Parlor restarts).
    let bot: ParlorBot?
    let poller: FeedPoller
    /// In the order they start; a service group stops them in reverse: the poller, Parlor Bot, the front's workers,
    /// the media upkeep, the event log (or SQLite's account log), then the live pages.
    let loops: [ParlorLoop]

    static func make(stores: Stores, _ settings: Settings, logger: Logger) async throws(Failure) -> Composition {
        let store = stores.store
        let app: WebFront
        do {
            var busHealth: (@Sendable () -> Bool)?
            if let eventLog = stores.eventLog { busHealth = { eventLog.isHealthy } }
            app = try await WebFront(
                configuration: settings.web, store: store, images: settings.images, immediate: stores.immediate, liveStore: stores.liveStore,
                bus: stores.bus, clock: settings.clock, timer: settings.timer, metrics: settings.metrics, changes: stores.changes,
                signInFailures: stores.signInFailures, busHealth: busHealth, push: store, logger: logger
            )
        } catch let error as TemplateLoadError {
            throw .templates(error)
        } catch {
            throw .front(error)
        }
        let bot = try await startBot(app: app, store: store, settings, logger: logger)
        let poller: FeedPoller
        do {
            let account = try await FeedPoller.account(router: app.events, store: store)
            let feeds = settings.feeds
            poller = FeedPoller(
                sink: app.events, store: store,
                checker: FeedChecker(fetcher: feeds.fetcher, icons: app.feedIcons, minimumInterval: feeds.minimumInterval, defaultInterval: feeds.defaultInterval),
                clock: settings.clock, author: account.id, postLimit: feeds.postLimit, round: feeds.round, timer: settings.timer, logger: logger,
                refused: { [metrics = app.metrics] total in metrics.workerRefused("feed_checks", total: total, logger: logger) }
            )
            app.events.addObserver(poller)
        } catch {
            throw .feedsAccount(error)
        }
        // Operators and the tests that run the real process see how far the services have got.
        app.metrics.addProgressGauge("parlor_bot_work_taken") { bot?.taken ?? 0 }
        app.metrics.addProgressGauge("parlor_bot_work_done") { bot?.done ?? 0 }
        app.metrics.addProgressGauge("parlor_bot_failures") { bot?.failures ?? 0 }
        app.metrics.addProgressGauge("parlor_feed_poller_rounds") { poller.rounds }

        var loops = [app.liveLoop]
        if let eventLog = stores.eventLog { loops.append(ParlorLoop("event log") { await eventLog.run() }) }
        if let accountLog = stores.accountLog {
            let reader = AccountLogReader(store: accountLog, bus: stores.bus, changes: stores.changes, logger: logger, timer: settings.timer)
            loops.append(ParlorLoop("account log") { await reader.run() })
        }
        let media = MediaService(media: app.media, store: store, logger: logger, timer: settings.timer)
        loops.append(ParlorLoop("media upkeep") { await media.run() })
        loops += app.workerLoops
        if let bot { loops.append(ParlorLoop("Parlor Bot") { await bot.run() }) }
        loops.append(ParlorLoop("feed poller") { await poller.run() })
        return Composition(app: app, bot: bot, poller: poller, loops: loops)
    }

    private static func startBot(app: WebFront, store: Stores.Store, _ settings: Settings, logger: Logger) async throws(Failure) -> ParlorBot? {
        do {
            return try await ParlorBot.start(
                router: app.events, store: store, clock: settings.clock, readDelay: settings.botReadDelay, replyDelay: settings.botReplyDelay, logger: logger
            )
        } catch let deactivated as ParlorBot.Deactivated {
            logger.notice("Parlor Bot stays quiet until it is reactivated and Parlor restarts", metadata: ["why": "\(deactivated)"])
            return nil
        } catch {
            throw .bot(error)
        }
    }
}
