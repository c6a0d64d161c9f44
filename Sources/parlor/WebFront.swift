import Clocks
import Logging
import MicroHTTP
import OutboundHTTP
import ParlorDomain
import ParlorEvents
import ParlorImages
import ParlorFeeds
import ParlorLive
import ParlorNotifications
import ParlorPush
import ParlorTemplates
import ParlorViews
import ParlorWeb
import ServerSentEvents

/// Parlor's web front, built and wired here, the composition root: the event router every change goes
/// through, the live pages, the page cache, sessions and the throttle, the photo worker, and one route type
/// per screen, each handed only what it uses. `parlor serve` runs the services it holds; the tests build
/// the same front on a store and clock of their own.
final class WebFront: Sendable {
    /// The single entry point for every change: routes send their events here, and so must any other source
    /// (a bot, a feed, another instance).
    let events: EventRouter
    /// The open pages: run it (``EventHandler/run()``) while serving.
    let live: EventHandler
    /// Makes the versions of messages' photos after the request; run it (``PhotoWorker/run()``) while serving.
    let photoWorker: PhotoWorker
    /// What Parlor counts; `/metrics` answers it.
    let metrics: ParlorMetrics
    /// Where live updates are held once for all the pages that receive them; the one server that serves
    /// this front is made with it (``makeServer(_:logger:)``).
    let eventRing: EventRing
    /// Says when shutdown has begun; `/readyz` answers from it.
    let readiness: Readiness
    let templates: PageTemplates
    let pageCache: PageCache
    let media: MediaFolder
    let feedIcons: OutsideImages
    /// Sends Web Push notifications; run it (``PushQueue/run()``) while serving, with ``pushNotifier``.
    let pushQueue: PushQueue
    /// Decides whom each message is pushed to; run it (``PushNotifier/run()``) while serving.
    let pushNotifier: PushNotifier
    /// Tells bots' webhooks of mentions and direct messages; run it (``BotWebhooks/run(router:)``) while serving.
    let botWebhooks: BotWebhooks
    /// Makes the cards of linked pages; run it (``LinkPreviewer/run(router:)``) while serving.
    let linkPreviewer: LinkPreviewer
    /// Tells the other instances (and this one's pages) who is around here; run it (``PresenceReporter/run()``).
    let presence: PresenceReporter
    /// Closes the streams of sessions that ended anywhere; run it (``StreamSessions/run()``).
    let streamSessions: StreamSessions
    private let routes: Routes

    /// Every route type, wired.
    private struct Routes: Sendable {
        let operations: OperationRoutes
        let accounts: AccountRoutes
        let chats: ChatRoutes
        let rooms: RoomRoutes
        let oldChatLinks: OldChatLinks
        let messages: MessageRoutes
        let streams: EventStreamRoutes
        let settings: SettingsRoutes
        let images: ImageRoutes
        let feeds: FeedRoutes
        let search: SearchRoutes
        let administration: AdministrationRoutes
        let botAPI: BotAPIRoutes
        let previews: PreviewRoutes
        let typing: TypingRoutes
        let reactions: ReactionRoutes
        let push: PushRoutes
        let presence: PresenceRoutes
    }

    /// Compiles the templates and wires the router and the live pages to `store` (`immediate`, when the store
    /// can read the signed-in pages on the calling thread; `liveStore`, when given, for the live pages' reads)
    /// and `bus`. Throws ``TemplateLoadError`` for a template mistake. Several
    /// instances on one database share `changes` with their bus (which counts other instances' changes),
    /// keep sign-in failures in `signInFailures`, and report the bus's `busHealth` on `/readyz`. `clock` is Parlor's "now"
    /// (dates, expiries of sessions and links); `timer` times what waits and what ages: typing, presence, the chat
    /// lists' pace, push retries, the streams' session checks (a test drives it).
    init(
        configuration: WebConfiguration, store: any ChatStore & AccountStore & ImageStore & FeedStore & SearchStore & AdministrationStore, images: any ImageService,
        immediate: (any ImmediateReads)? = nil, liveStore: (any ChatReads & FeedReads)? = nil, bus: any EventBus = InProcessEventBus(),
        clock: any WallClock = SystemClock(), timer: AnyClock<Duration> = AnyClock(ContinuousClock()),
        metrics: ParlorMetrics = ParlorMetrics(), changes: ChangeCounters = ChangeCounters(), signInFailures: (any SignInFailureStore)? = nil,
        busHealth: (@Sendable () -> Bool)? = nil, push: any PushStore, logger: Logger
    ) async throws {
        let templates = try PageTemplates(folder: configuration.templatesFolder, reloads: configuration.reloadTemplates, logger: logger)
        let paths = Paths(basePath: configuration.basePath)
        let dateLabels = DateLabels.Cache()
        let eventRing = EventRing()
        let encoder = StreamEncoder(ring: eventRing)
        // The live pages may read through a store of their own (the same data on other connections), so a crowd
        // of requests never queues the fan-out behind its reads.
        let live = EventHandler(
            store: liveStore ?? store, feeds: liveStore ?? store, clock: clock, timer: timer, basePath: configuration.basePath, logger: logger, dateLabels: dateLabels,
            bus: bus, templates: { templates.current }, encoding: encoder, lanes: configuration.liveLanes,
            fanOutPartSize: configuration.fanOutPartSize, offlineAfter: configuration.presenceOfflineAfter
        )
        // The policy `--signup` names is kept for a new Parlor; one that has a policy keeps its own.
        _ = try await store.startSettings(signUpPolicy: configuration.signUpPolicy)
        let pushStore = push
        let events = EventRouter(
            store: store, feeds: store, administration: store, accounts: store, push: pushStore, bus: bus, clock: clock, changes: changes, logger: logger
        )
        events.addObserver(metrics)
        events.addRefusalObserver { [metrics] refusal in metrics.refused(refusal) }
        events.addStoreTimer { [metrics] operation, elapsed in metrics.stored(operation, elapsed) }
        live.addFanOutTimer { [metrics] elapsed, events in metrics.fannedOut(elapsed, events: events) }
        // Templates that may change under a page are never kept rendered.
        let pageCache = PageCache(changes: changes, byteLimit: configuration.reloadTemplates ? 0 : configuration.pageCacheBytes)
        let media = MediaFolder(path: configuration.mediaFolder)
        let passwords = PasswordHasher(
            cost: configuration.passwordCost, concurrency: configuration.passwordThreads, waitingLimit: configuration.passwordWaitingLimit
        )
        let throttle = SignInThrottle(limits: configuration.signInLimits, shared: signInFailures)
        let accountStreams = AccountStreams(limit: configuration.eventStreamsPerAccount, evictedRetry: configuration.evictedStreamRetry)
        let sessions = Sessions(accounts: store, events: events, immediate: immediate, clock: clock, lifetime: configuration.sessionLifetime, basePath: configuration.basePath)
        // Each worker's refusals (its queue was full), counted by worker and logged at most once a minute.
        let refused: @Sendable (String) -> @Sendable (Int) -> Void = { [metrics] worker in
            { total in metrics.workerRefused(worker, total: total, logger: logger) }
        }
        let photoWorker = PhotoWorker(
            images: images, media: media, store: store, events: events, logger: logger, concurrency: configuration.photoWorkers,
            queueLimit: max(1, configuration.photosInProgress), refused: refused("photos")
        )
        let readiness = Readiness(busHealth: busHealth)

        let pages = WebPages(templates: templates, paths: paths, clock: clock, dateLabels: dateLabels)
        let gate = SignInGate(sessions: sessions, paths: paths, trustedProxies: configuration.trustedProxies, live: live)
        let chats = ChatPages(store: store, immediate: immediate, events: events, pages: pages, pageCache: pageCache, metrics: metrics)
        let photos = PhotoIntake(images: images, media: media, worker: photoWorker, store: store, limit: configuration.photosInProgress, logger: logger)
        let maximumPhotoBytes = configuration.imageLimits.maximumBytes
        // Web Push: the key made at the first start and kept in the database, the sender through the feeds' outbound
        // rules, and whom each message is pushed to (those with no visible page, as they follow the chat).
        let visiblePages = VisiblePages()
        guard let vapid = VAPID(storedKey: try await pushStore.vapidKey(generate: { VAPID.newStoredKey() }), subject: configuration.pushContact) else {
            throw PushKeyError()
        }
        let delivery = HTTPPushDelivery(vapid: vapid, policy: AddressPolicy(ports: configuration.pushPorts, allowsLoopback: configuration.pushAllowsLoopback))
        let pushQueue = PushQueue(
            delivery: delivery,
            gone: { [events, logger] subscription in
                let removal = PushRemoval(userID: subscription.userID, which: .endpoint(subscription.endpoint))
                switch await events.send(.unsubscribingPush(removal)) {
                case .pushSubscriptionsChanged, .refused(.notFound): break
                default: logger.warning("could not remove a push subscription", metadata: ["subscription": "\(subscription.id)"])
                }
            },
            timer: timer, logger: logger, refused: refused("push_queue")
        ) { [metrics] outcome in metrics.pushed(outcome) }
        let presence = PresenceReporter(
            pages: visiblePages, events: events, preferences: pushStore, refreshEvery: configuration.presenceRefresh, timer: timer, logger: logger,
            refused: refused("presence")
        )
        let streamSessions = StreamSessions(
            streams: accountStreams, accounts: store, clock: clock, presence: presence, interval: configuration.sessionCheckInterval, timer: timer,
            logger: logger
        )
        bus.subscribe { [streamSessions] in streamSessions.receive($0) }
        let visibility = EveryInstanceVisibility(here: presence, everywhere: live)
        let pushNotifier = PushNotifier(
            store: pushStore, chats: liveStore ?? store, visibility: visibility, queue: pushQueue, pathPrefix: configuration.basePath,
            words: { MessageCellBuilder.previewText($0) }, logger: logger, refused: refused("push_notifier")
        )
        events.addObserver(pushNotifier)
        let botWebhooks = BotWebhooks(
            store: store, delivery: HTTPWebhookDelivery(
                policy: AddressPolicy(ports: configuration.webhookPorts, allowsLoopback: configuration.webhookAllowsLoopback), timeout: configuration.webhookTimeout
            ),
            templates: { templates.current }, paths: paths, clock: clock, logger: logger, refused: refused("bot_webhooks")
        )
        events.addObserver(botWebhooks)
        // One resolver serves every outbound request of the process; a lookup it turns away finds nothing, so it is counted.
        HostResolver.shared.reportRefusals(to: refused("dns_lookups"))
        let outsideImages = OutsideImages(images: images, media: media, logger: logger)
        let linkPreviewer = LinkPreviewer(
            fetcher: HTTPPageFetcher(
                policy: AddressPolicy(ports: configuration.linkPreviewPorts, allowsLoopback: configuration.linkPreviewsAllowLoopback),
                timeout: configuration.linkPreviewTimeout
            ),
            pictures: outsideImages, cacheLifetime: configuration.linkPreviewLifetime, timer: timer, logger: logger, refused: refused("link_previews")
        )
        if configuration.linkPreviews { events.addObserver(linkPreviewer) }
        routes = Routes(
            operations: OperationRoutes(.init(
                readiness: readiness, store: store, metrics: metrics, live: live, metricsAddresses: configuration.metricsAddresses,
                trustedProxies: configuration.trustedProxies, logger: logger
            )),
            accounts: AccountRoutes(.init(
                gate: gate, pages: pages, events: events, store: store, administration: store, passwords: passwords, throttle: throttle,
                decoyHash: try await passwords.hashed("parlor-decoy-password"), metrics: metrics, logger: logger
            )),
            chats: ChatRoutes(.init(gate: gate, chats: chats, events: events, store: store)),
            rooms: RoomRoutes(.init(gate: gate, pages: pages, events: events, store: store)),
            oldChatLinks: OldChatLinks(paths: paths),
            messages: MessageRoutes(.init(
                gate: gate, chats: chats, events: events, store: store, photos: photos, maximumPhotoBytes: maximumPhotoBytes, logger: logger
            )),
            streams: EventStreamRoutes(.init(
                sessions: sessions, live: live, encoder: encoder, accountStreams: accountStreams,
                pacer: configuration.listPace > 0 ? RowPacer(interval: configuration.listPace, clock: timer) : nil, presence: presence, logger: logger
            )),
            settings: SettingsRoutes(.init(
                gate: gate, pages: pages, events: events, store: store, passwords: passwords, throttle: throttle,
                images: images, media: media, maximumPhotoBytes: maximumPhotoBytes, metrics: metrics,
                push: (pushStore, vapid.publicKey), logger: logger
            )),
            images: ImageRoutes(.init(gate: gate, pages: pages, store: store, media: media, logger: logger)),
            feeds: FeedRoutes(.init(gate: gate, pages: pages, events: events, store: store)),
            search: SearchRoutes(.init(gate: gate, pages: pages, store: store)),
            administration: AdministrationRoutes(.init(
                gate: gate, pages: pages, events: events, store: store, administration: store, avatars: (images, media, maximumPhotoBytes), logger: logger
            )),
            botAPI: BotAPIRoutes(.init(
                pages: pages, events: events, store: store, live: live, photos: photos, maximumPhotoBytes: maximumPhotoBytes,
                limits: configuration.botLimits, metrics: metrics, logger: logger
            )),
            previews: PreviewRoutes(.init(gate: gate, pages: pages, events: events, store: store)),
            typing: TypingRoutes(gate: gate, events: events),
            reactions: ReactionRoutes(.init(gate: gate, pages: pages, events: events, store: store)),
            push: PushRoutes(.init(
                gate: gate, pages: pages, store: pushStore, events: events, delivery: delivery, queue: pushQueue, logger: logger
            )),
            presence: PresenceRoutes(gate: gate, presence: presence)
        )
        self.presence = presence
        self.streamSessions = streamSessions
        self.pushQueue = pushQueue
        self.pushNotifier = pushNotifier
        self.botWebhooks = botWebhooks
        self.linkPreviewer = linkPreviewer
        self.events = events
        self.live = live
        self.photoWorker = photoWorker
        self.metrics = metrics
        self.eventRing = eventRing
        self.readiness = readiness
        self.templates = templates
        self.pageCache = pageCache
        self.media = media
        feedIcons = outsideImages
        self.configuration = configuration
    }

    private let configuration: WebConfiguration

    /// The live pages' loop: started first and stopped last, so every event of the others reaches the pages.
    var liveLoop: ParlorLoop { ParlorLoop("live pages") { [live] in await live.run() } }

    /// The front's workers, each a loop of its own, in the order they start (they stop in reverse): the streams'
    /// session checks, the photos, bots' webhooks, link cards, whom each message is pushed to, the pushes, presence.
    var workerLoops: [ParlorLoop] {
        [
            ParlorLoop("stream sessions") { [streamSessions] in await streamSessions.run() },
            ParlorLoop("photos") { [photoWorker] in await photoWorker.run() },
            ParlorLoop("bot webhooks") { [botWebhooks, events] in await botWebhooks.run(router: events) },
            ParlorLoop("link previews") { [linkPreviewer, events] in await linkPreviewer.run(router: events) },
            ParlorLoop("push notifier") { [pushNotifier] in await pushNotifier.run() },
            ParlorLoop("push queue") { [pushQueue] in await pushQueue.run() },
            ParlorLoop("presence") { [presence] in await presence.run() },
        ]
    }

    /// Every route under the base path, with the security headers on every response; `adding` registers
    /// the root's own (the gallery) after Parlor's.
    func makeRouter(adding extra: (inout Router) -> Void = { _ in }) throws -> Router {
        var router = Router()
        router.mountPath = configuration.basePath
        router.commonHeaders = SecurityHeaders.all
        try StaticFiles(folder: configuration.publicFolder).register(on: &router, at: "/public")
        try routes.operations.register(on: &router)
        routes.accounts.register(on: &router)
        // `/rooms/new` answers before `/rooms/{id}` whatever the order here: the router tries literal segments first.
        routes.rooms.register(on: &router)
        routes.chats.register(on: &router)
        routes.oldChatLinks.register(on: &router)
        routes.messages.register(on: &router)
        routes.streams.register(on: &router)
        routes.settings.register(on: &router)
        routes.images.register(on: &router)
        routes.feeds.register(on: &router)
        routes.search.register(on: &router)
        routes.administration.register(on: &router)
        routes.botAPI.register(on: &router)
        routes.previews.register(on: &router)
        routes.push.register(on: &router)
        routes.typing.register(on: &router)
        routes.reactions.register(on: &router)
        routes.presence.register(on: &router)
        try ServiceWorker(folder: configuration.publicFolder, paths: Paths(basePath: configuration.basePath)).register(on: &router)
        try AppManifest(paths: Paths(basePath: configuration.basePath)).register(on: &router)
        extra(&router)
        return router
    }

    /// The HTTP server for this front: its streams read live updates from the front's ring.
    func makeServer(_ configuration: ServerConfiguration, router: Router, logger: Logger, observer: (any RequestObserver)? = nil) -> HTTPServer {
        HTTPServer(configuration: configuration, router: router, logger: logger, eventRing: eventRing, observer: observer)
    }
}

/// The VAPID key in the database is not a P-256 key (written by hand?): `parlor serve --rotate-push-key` makes a new one.
struct PushKeyError: Error, CustomStringConvertible {
    var description: String { "the stored push key is not a P-256 private key; start once with --rotate-push-key" }
}
