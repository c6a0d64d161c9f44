import ServerSentEvents
import ByteOutput
import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import ParlorImages
import ParlorEvents
import ParlorLive
import ParlorTemplates
import ParlorViews
import Synchronization

/// The chat as a web application: the event router and handler, sessions, and the routes that turn
/// requests into events and view models into pages. The store is given: SQLite in `parlor serve`,
/// whichever a test or another deployment chooses. Other event sources (Parlor Bot) are started by
/// whoever runs the app, on ``events``.
public final class ParlorApp: Sendable {
    let configuration: WebConfiguration
    let store: any ChatStore & AccountStore & ImageStore & FeedStore
    let images: any ImageService
    let media: MediaFolder
    /// The single entry point for every change: routes send their events here, and so must any other
    /// source (a bot, a feed, another instance).
    public let events: EventRouter
    let handler: EventHandler
    let templates: PageTemplates
    let clock: any WallClock
    let sessions: Sessions
    let throttle: SignInThrottle
    let passwords: PasswordHasher
    /// Verified against when a handle is unknown, so a wrong handle costs as much as a wrong password.
    let decoyHash: String
    /// Encodes each live update once, as it is rendered, for every page that receives it.
    let streamEncoder: StreamEncoder
    /// Where live updates are held once for all the pages that receive them: the ``HTTPServer`` serving this
    /// app must be given this ring, or its streams copy every update.
    public let eventRing: EventRing
    let accountStreams: AccountStreams
    /// The zones settings offers: the system's list, read once rather than on every settings page.
    let timeZones = TimeZone.knownTimeZoneIdentifiers.sorted()
    let logger: Logger
    let paths: Paths
    /// Date labels per (locale, time zone), built once and shared by pages and live updates.
    let dateLabels = DateLabels.Cache()
    /// Chat pages kept between requests while nothing they show changes.
    let pageCache: PageCache
    /// Photos accepted and still being processed.
    let photoSlots: PhotoSlots
    /// Makes the versions of messages' photos after the request; run it (``PhotoWorker/run()``) while serving.
    public let photoWorker: PhotoWorker
    /// What Parlor counts; `/metrics` answers it.
    public let metrics: ParlorMetrics
    /// Set once shutdown begins: `/readyz` answers 503 so a proxy stops sending new work here.
    let draining = Atomic<Bool>(false)
    /// Whether the event bus receives other instances' events (a shared database's listener); `/readyz` asks.
    let busHealth: (@Sendable () -> Bool)?

    /// Compiles the templates and wires the event router and the live pages to `store` (`liveStore`, when
    /// given, for the live pages' reads) and `bus`; live updates are shared in `eventRing`, the ring of the
    /// server that will serve the app. Throws ``TemplateLoadError`` for a template mistake. Run
    /// ``runLiveUpdates()`` while serving. Several instances on one database share `changes` with their bus
    /// (which counts other instances' changes), keep sign-in failures in `signInFailures`, and report the
    /// bus's `busHealth` on `/readyz`.
    public init(
        configuration: WebConfiguration, store: any ChatStore & AccountStore & ImageStore & FeedStore, images: any ImageService,
        liveStore: (any ChatStore & FeedStore)? = nil,
        bus: any EventBus = InProcessEventBus(), clock: any WallClock = SystemClock(), eventRing: EventRing = EventRing(),
        metrics: ParlorMetrics = ParlorMetrics(), changes: ChangeCounters = ChangeCounters(), signInFailures: (any SignInFailureStore)? = nil,
        busHealth: (@Sendable () -> Bool)? = nil, logger: Logger
    ) async throws {
        self.busHealth = busHealth
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        passwords = PasswordHasher(
            cost: configuration.passwordCost, concurrency: configuration.passwordThreads, waitingLimit: configuration.passwordWaitingLimit
        )
        let templates = try PageTemplates(folder: configuration.templatesFolder, reloads: configuration.reloadTemplates, logger: logger)
        self.templates = templates
        paths = Paths(basePath: configuration.basePath)
        self.store = store
        self.images = images
        media = MediaFolder(path: configuration.mediaFolder, contentHash: { Sodium.hash(bytes: $0) })
        // The live pages may read through a store of their own (the same data on other connections), so a crowd
        // of requests never queues the fan-out behind its reads.
        self.eventRing = eventRing
        let encoder = StreamEncoder(ring: eventRing)
        streamEncoder = encoder
        handler = EventHandler(
            store: liveStore ?? store, feeds: liveStore ?? store, clock: clock, basePath: configuration.basePath, logger: logger, dateLabels: dateLabels, bus: bus, templates: { templates.current },
            encoding: encoder, lanes: configuration.liveLanes
        )
        events = EventRouter(store: store, feeds: store, bus: bus, clock: clock, changes: changes, logger: logger)
        self.metrics = metrics
        events.addObserver(metrics)
        events.addRefusalObserver { [metrics] refusal in metrics.refused(refusal) }
        events.addStoreTimer { [metrics] operation, elapsed in metrics.stored(operation, elapsed) }
        handler.addFanOutTimer { [metrics] elapsed, events in metrics.fannedOut(elapsed, events: events) }
        // Templates that may change under a page are never kept rendered.
        pageCache = PageCache(
            changes: changes, byteLimit: configuration.reloadTemplates ? 0 : configuration.pageCacheBytes,
            standInPrefix: Sodium.randomToken(bytes: 24)
        )
        sessions = Sessions(
            accounts: store, chats: store, clock: clock, lifetime: configuration.sessionLifetime,
            cookiePath: configuration.basePath.isEmpty ? "/" : configuration.basePath
        )
        throttle = SignInThrottle(limits: configuration.signInLimits, shared: signInFailures)
        accountStreams = AccountStreams(limit: configuration.eventStreamsPerAccount, evictedRetry: configuration.evictedStreamRetry)
        decoyHash = try await passwords.hashed("parlor-decoy-password")
        photoSlots = PhotoSlots(limit: configuration.photosInProgress)
        photoWorker = PhotoWorker(
            images: images, media: media, store: store, events: events, logger: logger, queueLimit: max(1, configuration.photosInProgress)
        )
    }

    /// Shutdown has begun: `/readyz` answers 503 from now on.
    public func startDraining() {
        draining.store(true, ordering: .releasing)
    }

    /// Removes media files no image names (what a crash between writing files and recording their image
    /// left); run once in the background after start, since a large folder takes a while to list.
    public func sweepMedia() async {
        do {
            // File ages are the file system's, so the real time, not the injected clock.
            let swept = media.sweep(keeping: try await store.imageHashes(), now: Date())
                + media.sweepOriginals(keeping: Set(try await store.pendingPhotos().map(\.original)), now: Date())
            if swept > 0 { logger.notice("media files without an image removed", metadata: ["count": "\(swept)"]) }
        } catch {
            logger.error("media files not swept", metadata: ["error": "\(error)"])
        }
    }

    /// Applies every published event to the open pages, and registers pages that connect, until cancelled.
    public func runLiveUpdates() async {
        await handler.run()
    }

    /// What the page cache holds and has done.
    public var pageCacheCounts: PageCacheCounts { pageCache.counts }

    /// The templates pages are rendered with now (reloaded ones, with `reloadTemplates`).
    public var currentTemplates: TemplateSet { templates.current }

    /// Every route, with the security headers on every response; `adding` registers the composition
    /// root's own (the gallery) after Parlor's.
    public func makeRouter(adding extra: (inout Router) -> Void = { _ in }) throws -> Router {
        var router = Router()
        router.mountPath = configuration.basePath
        router.commonHeaders = SecurityHeaders.all
        try StaticFiles(folder: configuration.publicFolder).register(on: &router, at: "/public")
        try registerOperationRoutes(on: &router)
        router.get("/") { [self] request in
            .redirect(to: try await sessions.current(request) == nil ? paths.signIn : paths.chats)
        }
        registerAccountRoutes(on: &router)
        registerChatRoutes(on: &router)
        registerMessageRoutes(on: &router)
        registerEventStreamRoute(on: &router)
        registerSettingsRoutes(on: &router)
        registerImageRoutes(on: &router)
        registerFeedRoutes(on: &router)
        extra(&router)
        return router
    }

    // MARK: Shared by the routes

    /// The builders' context for a signed-in person, at the clock's now.
    func context(_ signedIn: SignedIn) -> ViewerContext {
        ViewerContext(viewer: signedIn.user, now: clock.now, basePath: paths.basePath, csrfToken: signedIn.session.csrfToken, cache: dateLabels)
    }

    /// A page or a fragment. They carry CSRF tokens and private messages: never stored by a cache.
    func page<ViewModel: Renderable>(_ viewModel: ViewModel, status: HTTPStatus = .ok) -> Response {
        html(templates.current.render(viewModel, capacity: 32 * 1024), status: status)
    }

    /// A rendered page or fragment, with the same fields as ``page(_:status:)``.
    func html(_ rendered: OutputBuffer, status: HTTPStatus = .ok) -> Response {
        var response = Response.html(rendered, status: status)
        response.headers.replace("Cache-Control", with: "no-store")
        return response
    }

    func origin(_ request: Request) -> RequestOrigin {
        RequestOrigin(request, trustedProxies: configuration.trustedProxies)
    }

    static let forgedFormMessage =
        "This form was out of date or came from another site, so nothing was changed. Check it and send it again."

    /// Wraps a handler that needs a signed-in person. Without a session a page goes to sign-in and a
    /// POST is refused; every POST must carry the session's CSRF token and come from this site. A refused
    /// POST gets 403 with `refused`'s page (the form again, with a fresh token) or a page saying why.
    func signedIn(
        refused: (@Sendable (Request, SignedIn) async throws -> Response)? = nil,
        _ handler: @escaping @Sendable (Request, SignedIn) async throws -> Response
    ) -> AsyncHandler {
        { [self] request in
            guard let signedIn = try await sessions.current(request) else {
                if request.method == .post {
                    throw HTTPError(.forbidden, "Your session has ended, so nothing was changed. Sign in and try again.")
                }
                return .redirect(to: paths.signIn)
            }
            if request.method == .post {
                guard origin(request).allows(request), Sessions.formCarries(request, token: signedIn.session.csrfToken) else {
                    return try await forged(request, signedIn, refused: refused)
                }
                // A change waits while the open pages of its chat (`/chats/{id}/…`) are far behind: under a
                // flood of sends the answers slow down, and every page still shows every message, in order.
                // A change that names no chat waits for every lane.
                let chat = request.parameters["id"].flatMap { Int64($0) }.flatMap { $0 > 0 ? ChatID($0) : nil }
                await self.handler.room(for: chat)
            }
            return try await handler(request, signedIn)
        }
    }

    /// The answer to a POST that did not come from this site's form: `refused`'s page (the form again) with
    /// 403, or a page saying why.
    private func forged(
        _ request: Request, _ signedIn: SignedIn, refused: (@Sendable (Request, SignedIn) async throws -> Response)?
    ) async throws -> Response {
        guard let refused, !Self.isFromScript(request) else { throw HTTPError(.forbidden, Self.forgedFormMessage) }
        var response = try await refused(request, signedIn)
        response.status = .forbidden
        return response
    }

    /// The check on an upload's head, before a byte of its body is stored: a live session, this site's
    /// `Origin`, and the session's token in the head (the script's `X-Parlor-CSRF`, or the `csrf` query item
    /// of the form's action). Refused, the body is never stored; `refused` renders the form again (its text
    /// was in the body, so it comes back empty, with the reason).
    func uploadAdmission(refused: (@Sendable (Request, SignedIn) async throws -> Response)? = nil) -> Admission {
        { [self] request in
            guard let signedIn = try await sessions.current(request) else {
                throw HTTPError(.forbidden, "Your session has ended, so nothing was changed. Sign in and try again.")
            }
            guard origin(request).allows(request), Sessions.headCarries(request, token: signedIn.session.csrfToken) else {
                return try await forged(request, signedIn, refused: refused)
            }
            return nil
        }
    }

    /// Whether the request came from Parlor's script, which wants a short answer instead of a page.
    static func isFromScript(_ request: Request) -> Bool {
        request.headers["X-Parlor-Script"] == "1"
    }
}
