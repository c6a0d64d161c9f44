import ServerSentEvents
import ArgumentParser
import ByteOutput
import Logging
import MicroHTTP
import ParlorBots
import ParlorFeeds
import ParlorDomain
import ParlorImages
import ParlorPostgres
import ParlorPush
import ParlorStorage
import ParlorTemplates
import ParlorWeb
import ServiceLifecycle

/// `parlor serve`: listen and serve until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the Parlor server.")

    @Option(help: "Address to listen on (IPv4 or IPv6 literal).")
    var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: UInt16 = 8080
    @Option(help: "Folder of static files served under /public.")
    var `public` = "Public"
    @Option(help: "Folder of page templates.")
    var templates = "Templates"
    @Flag(help: "Re-read changed templates before each page (for designers; keeps the last good set on errors).")
    var reloadTemplates = false
    @Flag(help: "Serve /gallery: every screen in every state, rendered from the fixtures (development).")
    var gallery = false
    @Option(help: "The SQLite file people, chats and messages are kept in (created when missing), or a PostgreSQL address shared by several instances (postgres://user[:password]@host[:port]/database).")
    var database = "parlor.sqlite"
    @Option(help: "PostgreSQL: connections this instance opens for requests (a quarter as many more for live pages, one for the event log).")
    var databaseConnections = 16
    @Option(help: "PostgreSQL: seconds the event log keeps events; an instance further behind reloads its pages.")
    var eventLogRetention: Double = 3_600
    @Option(help: "Folder of image files, named by their hash (default: 'media' beside the database).")
    var media: String?
    @Option(help: "Largest photo upload, in megabytes.")
    var imageMegabytes = ImageLimits().maximumBytes / 1_000_000
    @Option(help: "Most megapixels of one photo (one frame), read from its header before any pixel is decoded.")
    var imageMegapixels = ImageLimits().maximumPixels / 1_000_000
    @Option(help: "Most megapixels of an animation, frames times pixels.")
    var animationMegapixels = ImageLimits().maximumAnimationPixels / 1_000_000
    @Option(help: "Most megabytes a progressive JPEG's decoder may need for its coefficients.")
    var progressiveJpegMegabytes = ImageLimits().maximumProgressiveBytes / 1_000_000
    @Option(help: "Photos processed at once (default: one per core).")
    var imageThreads = ServerConfiguration.onlineCores
    @Option(help: "Photos that may wait to be processed before more get 503.")
    var imageWaitingLimit = 16
    @Option(help: "glibc malloc arenas (0: glibc's default of eight per core); fewer keep less freed memory.")
    var mallocArenas = max(2, ServerConfiguration.onlineCores)
    @Option(help: "Path Parlor is served under behind a proxy that keeps it (\"/chat\"); every URL Parlor writes starts with it.")
    var basePath = ""
    @Option(help: "Address /metrics answers (repeatable; the person's address, as a trusted proxy reports it). None: no /metrics.")
    var metricsAddress: [String] = []
    @Option(help: "Address of a reverse proxy whose X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For are believed (repeatable).")
    var trustedProxy: [String] = []
    @Option(help: "Most photo and avatar uploads in progress at once; past it 503 with Retry-After.")
    var uploadsInProgress = ServerConfiguration().uploadsInProgress
    @Option(help: "Most uploads in progress at once from one address (the person's, behind a trusted proxy).")
    var uploadsPerAddress = ServerConfiguration().uploadsInProgressPerAddress
    @Option(help: "Seconds Parlor Bot waits before marking a message read.")
    var botReadDelay: Double = 1
    @Option(help: "Seconds Parlor Bot waits before answering.")
    var botReplyDelay: Double = 2
    @Option(help: "Polling threads (default: one per core).")
    var threads = ServerConfiguration.onlineCores
    @Option(help: "Most connections at once.")
    var connectionLimit = ServerConfiguration().connectionLimit
    @Option(help: "Most connections from one address (0: no limit).")
    var perAddressLimit = ServerConfiguration().perAddressConnectionLimit
    @Option(help: "Seconds before an idle connection is closed (0: never).")
    var connectionTimeout = ServerConfiguration().connectionTimeoutSeconds
    @Option(help: "Pending connections the kernel may queue.")
    var listenBacklog = ServerConfiguration().listenBacklog
    @Option(help: "Bytes of memory per connection for headers and buffers.")
    var connectionMemoryLimit = ServerConfiguration().connectionMemoryLimit
    @Option(help: "Largest request body, in bytes, unless a route says otherwise.")
    var bodyLimit = ServerConfiguration().defaultBodyLimit
    @Option(help: "Seconds between heartbeats on event streams.")
    var heartbeat: Double = 15
    @Option(help: "Bytes that may wait for one slow event-stream client before it is cut off.")
    var eventStreamQueueLimit = ServerConfiguration().eventStreamQueueLimit
    @Option(help: "Most milliseconds suspended connections (idle event streams with news, answered requests) wait to be resumed together: 2 µs per open stream up to this (0: each at once). libmicrohttpd looks through every suspended one at each resume.")
    var resumeWindow = 25
    @Option(help: "Event streams (open pages) one account may hold; a new one past this closes the oldest.")
    var streamsPerAccount = WebConfiguration().eventStreamsPerAccount
    @Option(help: "Megabytes of rendered chat pages kept between requests while nothing they show changes (0: none).")
    var pageCacheMegabytes = WebConfiguration().pageCacheBytes / (1024 * 1024)
    @Option(help: "Chats whose live updates are applied side by side (each chat's in order); default: one per core.")
    var liveLanes = WebConfiguration().liveLanes
    @Option(help: "Seconds at least between two changes of a row of a page's chat list whose chat the page does not show, and of its badge; the newest is sent at the end (0: each at once).")
    var listPace = WebConfiguration().listPace
    @Option(help: "Rooms with more members than this have each message's fan-out split across the live lanes, side by side.")
    var fanOutPartSize = WebConfiguration().fanOutPartSize
    @Option(help: "Sign-ins that may wait for a password hash before more get 503 (default: 16 per core).")
    var passwordWaitingLimit: Int?
    @Option(help: "Seconds in-flight requests get to finish at shutdown.")
    var shutdownGrace: Double = 10
    @Option(help: "Seconds Parlor keeps serving after /readyz turned 503 at shutdown, before it refuses connections.")
    var drainDelay: Double = 0
    @Option(help: "Seconds over which open event streams are ended at shutdown (at most half the grace).")
    var streamCloseWindow: Double = 2
    @OptionGroup(title: "Feeds")
    var feeds: FeedOptions
    @OptionGroup(title: "Notifications")
    var push: PushOptions

    @Option(help: "Who may create an account on a new Parlor: open (anyone who reaches it) or invitation (through the join link an administrator shares). A Parlor that has a policy keeps it; administrators change it on the Administration page.")
    var signup: SignUp = .open

    enum SignUp: String, ExpressibleByArgument {
        case open, invitation
    }

    @Option(help: "Port bots' webhooks may be called on (repeatable; default: 80 and 443).")
    var webhookPort: [Int] = []
    @Flag(help: "Let bots' webhooks call this machine (loopback addresses): for tests only; private networks stay refused.")
    var webhookAllowLoopback = false
    @Option(help: "Messages (posts, photos, edits, reactions) one bot's key may send in a minute; past it 429 with Retry-After.")
    var botMessagesPerMinute = 60
    @Option(help: "Direct chats one bot's key may open in a minute; past it 429 with Retry-After.")
    var botDirectChatsPerMinute = 10
    @Flag(inversion: .prefixedNo, help: "Show the card (title, description, site) of the page a message links to, fetched by Parlor.")
    var linkPreviews = true
    @Option(help: "Port linked pages may be fetched from for their cards (repeatable; default: 80 and 443).")
    var linkPreviewPort: [Int] = []
    @Flag(help: "Let linked pages be fetched from this machine (loopback addresses): for tests only; private networks stay refused.")
    var linkPreviewAllowLoopback = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info
    @Option(help: "Log lines as text (for people) or json (one object per line, for journald and log shippers).")
    var logFormat: LogFormat = .text

    enum LogFormat: String, ExpressibleByArgument {
        case text, json
    }

    func validate() throws {
        // Bounded before they become milliseconds: a Double past Int64's range would stop Parlor at start.
        guard (0...1_024).contains(mallocArenas) else { throw ValidationError("--malloc-arenas must be 0 to 1024") }
        guard heartbeat > 0, heartbeat <= 3_600 else { throw ValidationError("--heartbeat must be above 0 and at most 3600 seconds") }
        guard WebConfiguration.isValidBasePath(basePath) else {
            throw ValidationError("--base-path must be empty or like /chat: a slash, then letters, digits, '-', '_' or '.', no slash at the end")
        }
        guard drainDelay >= 0, drainDelay <= 60 else { throw ValidationError("--drain-delay must be 0 to 60 seconds") }
        guard streamCloseWindow >= 0, streamCloseWindow <= 60 else { throw ValidationError("--stream-close-window must be 0 to 60 seconds") }
        guard shutdownGrace >= 0, shutdownGrace <= 3_600 else { throw ValidationError("--shutdown-grace must be 0 to 3600 seconds") }
        guard botReadDelay >= 0, botReplyDelay >= 0, botReadDelay <= 3_600, botReplyDelay <= 3_600 else {
            throw ValidationError("bot delays must be 0 to 3600 seconds")
        }
        for address in trustedProxy + metricsAddress where ClientAddress.canonical(address) == nil {
            throw ValidationError("'\(address)' is not an IPv4 or IPv6 address (--trusted-proxy, --metrics-address)")
        }
        guard (1...100_000).contains(uploadsInProgress), (1...100_000).contains(uploadsPerAddress) else {
            throw ValidationError("--uploads-in-progress and --uploads-per-address must be 1 to 100000")
        }
        guard (webhookPort + linkPreviewPort).allSatisfy({ (1...65_535).contains($0) }) else {
            throw ValidationError("--webhook-port and --link-preview-port must be 1 to 65535")
        }
        guard (1...100_000).contains(botMessagesPerMinute), (1...100_000).contains(botDirectChatsPerMinute) else {
            throw ValidationError("--bot-messages-per-minute and --bot-direct-chats-per-minute must be 1 to 100000")
        }
        guard streamsPerAccount >= 1 else { throw ValidationError("--streams-per-account must be at least 1") }
        guard (1...64).contains(liveLanes) else { throw ValidationError("--live-lanes must be 1 to 64") }
        guard (0...1_000).contains(resumeWindow) else { throw ValidationError("--resume-window must be 0 to 1000 milliseconds") }
        guard fanOutPartSize >= 1 else { throw ValidationError("--fan-out-part-size must be at least 1") }
        guard (0...60).contains(listPace) else { throw ValidationError("--list-pace must be 0 to 60 seconds") }
        guard (0...65_536).contains(pageCacheMegabytes) else { throw ValidationError("--page-cache-megabytes must be 0 to 65536") }
        guard (passwordWaitingLimit ?? 0) >= 0 else { throw ValidationError("--password-waiting-limit cannot be negative") }
        // Megabytes become bytes and a body limit: bounded first.
        guard (1...1_000).contains(imageMegabytes) else { throw ValidationError("--image-megabytes must be 1 to 1000") }
        guard (1...1_000).contains(imageMegapixels) else { throw ValidationError("--image-megapixels must be 1 to 1000") }
        guard (1...100_000).contains(animationMegapixels) else { throw ValidationError("--animation-megapixels must be 1 to 100000") }
        guard (1...100_000).contains(progressiveJpegMegabytes) else { throw ValidationError("--progressive-jpeg-megabytes must be 1 to 100000") }
        guard (1...256).contains(imageThreads) else { throw ValidationError("--image-threads must be 1 to 256") }
        guard (0...10_000).contains(imageWaitingLimit) else { throw ValidationError("--image-waiting-limit must be 0 to 10000") }
        guard (2...1_000).contains(databaseConnections) else { throw ValidationError("--database-connections must be 2 to 1000") }
        guard eventLogRetention >= 60, eventLogRetention <= 30 * 86_400 else {
            throw ValidationError("--event-log-retention must be 60 seconds to 30 days")
        }
    }

    func run() async throws {
        MallocSettings.apply(arenas: mallocArenas)
        let level = logLevel
        switch logFormat {
        case .text: LoggingSystem.bootstrap { label in EscapingLogHandler(label: label, level: level) }
        case .json: LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        }
        let logger = Logger(label: "parlor")
        OpenFileLimit.raise(toServe: connectionLimit, logger: logger)

        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.threads = threads
        configuration.connectionLimit = connectionLimit
        configuration.perAddressConnectionLimit = perAddressLimit
        configuration.connectionTimeoutSeconds = connectionTimeout
        configuration.listenBacklog = listenBacklog
        configuration.connectionMemoryLimit = connectionMemoryLimit
        configuration.defaultBodyLimit = bodyLimit
        configuration.heartbeatInterval = .milliseconds(Int64(heartbeat * 1000))
        configuration.eventStreamQueueLimit = eventStreamQueueLimit
        configuration.resumeWindow = .milliseconds(resumeWindow)
        configuration.eventStreamCloseWindow = .milliseconds(Int64(streamCloseWindow * 1000))
        // Written as the peer's address is ("::1", not "0:0:0:0:0:0:0:1"), so that they compare equal.
        let trustedProxies = Set(trustedProxy.compactMap(ClientAddress.canonical))
        configuration.trustedProxies = trustedProxies
        configuration.uploadsInProgress = uploadsInProgress
        configuration.uploadsInProgressPerAddress = uploadsPerAddress

        var web = WebConfiguration()
        web.publicFolder = `public`
        web.templatesFolder = templates
        web.reloadTemplates = reloadTemplates
        web.basePath = basePath
        web.metricsAddresses = Set(metricsAddress.compactMap(ClientAddress.canonical))
        web.trustedProxies = trustedProxies
        web.eventStreamsPerAccount = streamsPerAccount
        web.passwordWaitingLimit = passwordWaitingLimit
        web.pageCacheBytes = pageCacheMegabytes * 1024 * 1024
        web.liveLanes = liveLanes
        web.listPace = listPace
        web.fanOutPartSize = fanOutPartSize
        web.pushPorts = push.pushPorts.isEmpty ? [443] : Set(push.pushPorts)
        web.pushAllowsLoopback = push.pushAllowLoopback
        web.pushContact = push.pushContact
        web.signUpPolicy = signup == .open ? .open : .invitation
        if !webhookPort.isEmpty { web.webhookPorts = Set(webhookPort) }
        web.webhookAllowsLoopback = webhookAllowLoopback
        web.botLimits = BotLimits(messagesPerMinute: botMessagesPerMinute, directChatsPerMinute: botDirectChatsPerMinute)
        web.linkPreviews = linkPreviews
        if !linkPreviewPort.isEmpty { web.linkPreviewPorts = Set(linkPreviewPort) }
        web.linkPreviewsAllowLoopback = linkPreviewAllowLoopback
        web.presenceOfflineAfter = .milliseconds(Int64(push.presenceOfflineAfter * 1_000))
        web.presenceRefresh = .milliseconds(Int64(push.presenceRefresh * 1_000))
        web.sessionCheckInterval = configuration.heartbeatInterval
        // Beside the database: "data/parlor.sqlite" keeps its images in "data/media"; with PostgreSQL, "media"
        // (several instances must share one folder: the instance that processes a photo is not always the one that serves it).
        web.mediaFolder = media ?? (Stores.isPostgres(database) ? "media" : database.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            .nonEmpty.map { $0 + "/media" } ?? (database.hasPrefix("/") ? "/media" : "media"))
        web.imageLimits = ImageLimits(
            maximumBytes: imageMegabytes * 1_000_000, maximumPixels: imageMegapixels * 1_000_000,
            maximumAnimationPixels: animationMegapixels * 1_000_000, maximumProgressiveBytes: progressiveJpegMegabytes * 1_000_000
        )
        // A photo accepted is a photo the worker owes: no more than it runs and keeps waiting.
        web.photosInProgress = imageThreads + imageWaitingLimit
        web.photoWorkers = imageThreads
        guard let images = VipsImageService(limits: web.imageLimits, concurrency: imageThreads, queueLimit: imageWaitingLimit) else {
            logger.critical("libvips could not start")
            throw ExitCode(70)
        }
        // PostgreSQL's pools run as the group's first services (stopped last); everything else runs in the
        // Parlor service once they do: the schema, the app, Parlor Bot, the poller, the HTTP front.
        let pools: [PostgresDatabase]
        do {
            pools = try Stores.pools(database, connections: databaseConnections, logger: logger)
        } catch {
            // Never the address itself: it may hold a password.
            logger.critical("the database could not be opened", metadata: ["database": "postgres", "error": "\(error)"])
            throw ExitCode(74)
        }
        let parlor = ParlorService { [web, configuration] in
            try await serve(pools: pools, web: web, configuration: configuration, images: images, logger: logger)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: pools.map { .init(service: PostgresPoolService(database: $0)) } + [.init(service: parlor)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// Everything that runs on the store: opened (its schema brought up to date) through the running pools,
    /// then the app and its services in a group of their own, stopped when the outer group stops.
    private func serve(pools: [PostgresDatabase], web: WebConfiguration, configuration: ServerConfiguration, images: VipsImageService, logger: Logger) async throws {
        // The store and Parlor Bot are chosen here; the web app is handed them.
        let stores: Stores
        do {
            stores = try await Stores.open(database, pools: pools, retention: .milliseconds(Int64(eventLogRetention * 1_000)), logger: logger)
        } catch {
            // Never the address itself: it may hold a password.
            logger.critical("the database could not be opened", metadata: [
                "database": "\(Stores.isPostgres(database) ? "postgres" : database)", "error": "\(error)",
            ])
            throw ExitCode(74)
        }
        let store = stores.store
        if push.rotatePushKey {
            do {
                try await store.replaceVapidKey(with: VAPID.newStoredKey())
            } catch {
                logger.critical("the push key could not be replaced", metadata: ["error": "\(error)"])
                throw ExitCode(74)
            }
            logger.notice("made a new push key: every browser must turn notifications on again")
        }
        let composition: Composition
        do {
            composition = try await Composition.make(stores: stores, Composition.Settings(
                web: web, images: images, metrics: ParlorMetrics.prometheus(), botReadDelay: .milliseconds(Int64(botReadDelay * 1000)),
                botReplyDelay: .milliseconds(Int64(botReplyDelay * 1000)), feeds: feeds.composed
            ), logger: logger)
        } catch .templates(let error) {
            // Every mistake with its file and line; a broken template never starts serving blank text.
            logger.critical("templates do not compile:\n\(error.description)")
            throw ExitCode(78)
        } catch .front(let error) {
            throw error
        } catch .bot(let error) {
            logger.critical("Parlor Bot could not start", metadata: ["error": "\(error)"])
            throw ExitCode(74)
        } catch .feedsAccount(let error) {
            logger.critical("the feeds' account could not be made", metadata: ["error": "\(error)"])
            throw ExitCode(74)
        }
        let app = composition.app
        let router = try app.makeRouter { router in
            if gallery { GalleryRoute.register(on: &router, templates: { app.templates.current }) }
        }
        let server = app.makeServer(configuration, router: router, logger: logger, observer: app.metrics)
        let service = HTTPService(
            server: server, gracePeriod: .milliseconds(Int64(shutdownGrace * 1000)), drainDelay: .milliseconds(Int64(drainDelay * 1000)),
            startDraining: { app.readiness.startDraining() }
        )
        // Started in the composition's order and stopped in reverse, the HTTP front first (no new events).
        let loops = composition.loops
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = loops.map { .init(service: $0) } + [.init(service: service)]
        // Run inside the outer group, it shuts down gracefully when that one does (the signals); the pools stop
        // only once it has.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
        try await group.run()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
