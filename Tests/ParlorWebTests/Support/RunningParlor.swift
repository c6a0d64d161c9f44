import Clocks
import Foundation
import ServerSentEvents
import Synchronization
import HTTPTestSupport
import Logging
import MicroHTTP
import ParlorBots
import ParlorDomain
import ParlorEvents
import ParlorStorage
import ParlorWeb
@testable import parlor

/// Parlor's web front in this process: a real SQLite file in a fresh folder, a real server on
/// 127.0.0.1 and an ephemeral port, Parlor Bot without pauses.
final class RunningParlor {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Friday 20 November 2026, 13:05 UTC.
    static let now = Date(timeIntervalSince1970: 1_795_179_900)

    let folder: URL
    /// Parlor's web front, wired as `parlor serve` wires it.
    let app: WebFront
    let server: HTTPServer
    /// The front's loops (``WebFront/liveLoop``, ``WebFront/workerLoops``) and Parlor Bot, the same ones `parlor serve`
    /// runs, for as long as this Parlor lives.
    private let loops: Task<Void, Never>
    let bot: ParlorBot
    let store: SQLiteChatStore
    /// Parlor's "now", moved on by tests of what expires.
    let clock: ManualClock
    /// Everything this Parlor logged at info and above.
    let log = CapturedLog()
    /// Store operations that wrote outside a router command once serving began (every test that starts a Parlor fails
    /// on any: nothing but the router writes).
    let unroutedWrites = UnroutedWrites()
    /// The routes whose paths carry a secret, as the log may show them.
    let patternsWithSecrets: [String]
    var port: UInt16 { server.port ?? 0 }

    init(
        folder: URL? = nil, images: any ImageService = InMemoryImageService(), configure: (inout WebConfiguration) -> Void = { _ in },
        configureServer: (inout ServerConfiguration) -> Void = { _ in }, metrics: ParlorMetrics = ParlorMetrics(),
        signInFailures: (any SignInFailureStore)? = nil, timer: AnyClock<Duration>? = nil
    ) async throws {
        let folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("parlor-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        var configuration = WebConfiguration()
        configuration.publicFolder = Self.repository.appendingPathComponent("Public").path
        configuration.templatesFolder = Self.repository.appendingPathComponent("Templates").path
        // Argon2id at its minimum cost: the suite makes about a hundred accounts while other suites run.
        // The interactive cost is what `parlor serve` uses; the browser test and one test here keep it.
        configuration.passwordCost = .minimum
        configuration.mediaFolder = folder.appendingPathComponent("media").path
        configure(&configuration)
        let logger = Logger(label: "parlor-test") { [log] _ in log.handler() }
        // A fixed "now", so dates read the same on every run.
        let store = try SQLiteChatStore(path: folder.appendingPathComponent("parlor.sqlite").path)
        let clock = ManualClock(Self.now)
        let stores = Stores(
            store: store, liveStore: store, immediate: store, bus: InProcessEventBus(), changes: ChangeCounters(), eventLog: nil, accountLog: store,
            signInFailures: signInFailures
        )
        // The services `parlor serve` runs, from the function it builds them with; Parlor Bot answers without pauses.
        let composition = try await Composition.make(stores: stores, Composition.Settings(
            web: configuration, images: images, clock: clock, timer: timer ?? AnyClock(ContinuousClock()), metrics: metrics, botReadDelay: .zero,
            botReplyDelay: .zero, feeds: .standard
        ), logger: logger)
        let app = composition.app
        self.app = app
        self.store = store
        // Writes made while starting (the settings kept for a new Parlor, the push key, the accounts of Parlor Bot and
        // of the feeds) are the start's own.
        store.watchUnroutedWrites { [unroutedWrites] operation in unroutedWrites.operations.withLock { $0.append(operation) } }
        self.clock = clock
        guard let bot = composition.bot else { throw ClientError(description: "Parlor Bot did not start") }
        self.bot = bot
        loops = Task { [running = composition.loops] in
            await withDiscardingTaskGroup { group in
                for loop in running { group.addTask { await loop.body() } }
            }
        }
        var server = ServerConfiguration()
        server.host = "127.0.0.1"
        server.port = 0
        server.threads = 2
        // Uploads in progress go to this Parlor's own folder, so a test can see what was stored.
        server.uploadFolder = folder.appendingPathComponent("uploads").path
        configureServer(&server)
        let router = try app.makeRouter()
        patternsWithSecrets = router.patternsWithSecrets
        self.server = app.makeServer(server, router: router, logger: logger)
        try self.server.start()
    }

    /// Sweeps the media folder as `parlor serve`'s upkeep does.
    func sweepMedia() async {
        await MediaService(media: app.media, store: store, logger: Logger(label: "parlor-test") { _ in SwiftLogNoOpLogHandler() }).sweep()
    }

    /// Cancels the front's loops (and Parlor Bot) and waits for every one of them to return; answers how long that took.
    func stopLoops() async -> Duration {
        let started = ContinuousClock.now
        loops.cancel()
        await loops.value
        return ContinuousClock.now - started
    }

    /// Stops the server; the folder stays for a restart on the same file.
    func stop() async {
        await server.shutdown(gracePeriod: .seconds(2))
        loops.cancel()
    }

    /// Stops and deletes the folder.
    func finish() async {
        await stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Log lines that show a secret of a path (a join link's code) instead of its route's pattern.
    var linesShowingSecrets: [String] { log.linesShowingSecrets(of: patternsWithSecrets) }

    /// Runs `body` with a fresh Parlor, stopping it and removing its files however `body` ends. Then fails if
    /// the log shows a secret of a path (every test that starts a Parlor scans its log). `timer`, when given, times
    /// what waits and ages (typing, presence, pacing, retries, session checks): a test that drives a `TestClock`.
    static func with<Result>(
        images: any ImageService = InMemoryImageService(), configure: (inout WebConfiguration) -> Void = { _ in },
        configureServer: (inout ServerConfiguration) -> Void = { _ in }, metrics: ParlorMetrics = ParlorMetrics(),
        timer: AnyClock<Duration>? = nil, _ body: (RunningParlor) async throws -> Result
    ) async throws -> Result {
        let parlor = try await RunningParlor(images: images, configure: configure, configureServer: configureServer, metrics: metrics, timer: timer)
        do {
            let result = try await body(parlor)
            await parlor.finish()
            let leaked = parlor.linesShowingSecrets
            guard leaked.isEmpty else { throw ClientError(description: "the log shows a path's secret:\n" + leaked.joined(separator: "\n")) }
            let unrouted = parlor.unroutedWrites.operations.withLock { $0 }
            guard unrouted.isEmpty else { throw ClientError(description: "the store was written around the router: \(unrouted)") }
            return result
        } catch {
            await parlor.finish()
            throw error
        }
    }
}

/// The store operations a Parlor wrote around the router.
final class UnroutedWrites: Sendable {
    let operations = Mutex<[String]>([])
}
