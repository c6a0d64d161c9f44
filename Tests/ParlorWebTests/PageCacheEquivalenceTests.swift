import ServerSentEvents
import Foundation
import HTTPTestSupport
import Logging
import MicroHTTP
import ParlorDomain
import ParlorStorage
import ParlorWeb
@testable import parlor
import Testing

/// A page served from the page cache is byte for byte the page a fresh render gives. Two Parlors share one
/// SQLite file and one clock: one keeps pages, the other never does. Every change goes through the first,
/// as a person makes it (sends, replies, edits, deletions, reads, renames, time zones and languages, new chats), and
/// the clock moves, past midnight in one viewer's zone or another's. After each step every page of every
/// person is asked of both, and the two must be equal, but for the composer's fresh token.
@Suite struct PageCacheEquivalenceTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func aKeptPageIsWhatAFreshRenderGivesAfterAnySequenceOfChanges(seed: UInt64) async throws {
        let twins = try await TwinParlors()
        do {
            try await Self.run(twins, seed: seed, steps: 40)
            await twins.finish()
        } catch {
            await twins.finish()
            throw error
        }
    }

    /// One person of the test: the same cookies on both Parlors.
    final class Person {
        let handle: String
        let cached: Visitor
        let fresh: Visitor
        var chats: [String: String] = [:]
        var sent: [(chat: String, message: String)] = []

        init(_ handle: String, _ twins: TwinParlors) {
            self.handle = handle
            cached = Visitor(port: twins.cachedPort)
            fresh = Visitor(port: twins.freshPort)
        }
    }

    static func run(_ twins: TwinParlors, seed: UInt64, steps: Int) async throws {
        var random = SplitMix(seed: seed)
        let people = ["ana", "ben", "cai", "dee"].map { Person($0, twins) }
        for person in people {
            try await person.cached.signUp(person.handle)
            person.fresh.cookies = person.cached.cookies
        }
        // Zones with whole, half and negative offsets, so midnight comes at different moments for each.
        let zones = ["UTC", "Pacific/Auckland", "America/Los_Angeles", "Asia/Kolkata"]
        let locales = ["en_US", "de_DE", "ja_JP", "fr_FR"]
        for (index, person) in people.enumerated() {
            try await person.cached.get("/settings")
            try await person.cached.post("/settings", [
                ("displayName", person.handle.capitalized), ("timeZone", zones[index]), ("locale", locales[index]),
            ])
        }
        try await startChat(people[0], people[1])
        try await startChat(people[0], people[2])

        var compared = 0
        for step in 0..<steps {
            let person = people[random.next(below: people.count)]
            let chats = person.chats.values.sorted()
            switch random.next(below: 9) {
            case 0, 1, 2:
                guard let chat = chats.randomElement(using: &random) else { break }
                var fields = [("body", "Step \(step): <b>hello</b> see https://example.org/\(step) & more"), ("token", "t\(seed)x\(step)")]
                if random.next(below: 3) == 0, let quoted = person.sent.filter({ $0.chat == chat }).randomElement(using: &random) {
                    fields.append(("replyTo", quoted.message))
                }
                try await person.cached.get(chat)
                let sent = try await person.cached.post(chat + "/messages", fields)
                #expect(sent.status == 303, "step \(step)")
                if let location = sent.header("Location"), let hash = location.range(of: "#message-") {
                    person.sent.append((chat, String(location[hash.upperBound...])))
                }
            case 3:
                guard let index = person.sent.indices.randomElement(using: &random) else { break }
                let (chat, message) = person.sent[index]
                if random.next(below: 4) == 0 {
                    person.sent.remove(at: index)
                    let deleted = try await person.cached.post(chat + "/messages/" + message + "/delete", [])
                    #expect(deleted.status == 303, "step \(step)")
                } else {
                    let edited = try await person.cached.post(chat + "/messages/" + message, [("body", "Edited at step \(step)")])
                    #expect(edited.status == 303, "step \(step)")
                }
            case 4:
                // Reading: opening the chat on the caching Parlor moves the read mark through its router.
                guard let chat = chats.randomElement(using: &random) else { break }
                try await person.cached.get(chat)
            case 5:
                try await person.cached.get("/settings")
                try await person.cached.post("/settings", [
                    ("displayName", "\(person.handle.capitalized) \(step)"),
                    ("timeZone", zones[random.next(below: zones.count)]), ("locale", locales[random.next(below: locales.count)]),
                ])
            case 6:
                let others = people.filter { $0 !== person && person.chats[$0.handle] == nil }
                if let other = others.randomElement(using: &random) { try await startChat(person, other) }
            default:
                // From a few minutes to more than a day: every zone's midnight is passed now and then.
                let minutes = [7, 95, 360, 610, 1_500][random.next(below: 5)]
                twins.clock.advance(by: TimeInterval(minutes * 60))
            }
            for viewer in people {
                // The caching Parlor first: it is the one that writes a read mark when a chat is opened.
                for path in ["/chats"] + viewer.chats.values.sorted() {
                    let kept = try await viewer.cached.get(path)
                    let fresh = try await viewer.fresh.get(path)
                    #expect(kept.status == 200 && fresh.status == 200, "step \(step) \(viewer.handle) \(path)")
                    // The opening that reads a chat shows where its unread messages started; the fresh twin
                    // opens it already read. That line and the jump to it are the one difference allowed (and such a page
                    // is not kept).
                    let keptPage = Self.withoutComposerToken(kept.text).replacingOccurrences(of: Self.unreadMarker, with: "")
                        .replacingOccurrences(of: Self.jumpToUnread, with: "")
                    let freshPage = Self.withoutComposerToken(fresh.text)
                    #expect(keptPage == freshPage, "seed \(seed) step \(step): \(viewer.handle) \(path)\n\(Self.firstDifference(keptPage, freshPage))")
                    if keptPage != freshPage { return }
                    compared += 1
                }
            }
        }
        let counts = twins.cachedApp.pageCache.counts
        // The comparison means something only if pages were served from the cache, and kept ones went stale.
        #expect(counts.served > compared / 3, "\(counts)")
        #expect(counts.rendered > 20, "\(counts)")
        let none = twins.freshApp.pageCache.counts
        #expect(none.pages == 0 && none.served == 0 && none.rendered == 0, "\(none)")
    }

    static func startChat(_ person: Person, _ other: Person) async throws {
        let chat = try await person.cached.startChat(with: other.handle)
        person.chats[other.handle] = chat
        other.chats[person.handle] = chat
    }

    /// The page with the composer's token (fresh on every render, by design) blanked.
    static let unreadMarker = "<li class=\"unread-marker\" id=\"unread-marker\"><span>New messages</span></li>\n"
    static let jumpToUnread = "<p class=\"jump-unread\"><a href=\"#unread-marker\">Jump to first unread</a></p>\n"

    static func withoutComposerToken(_ html: String) -> String {
        guard let token = Visitor.field("token", in: html), !token.isEmpty else { return html }
        return html.replacingOccurrences(of: "name=\"token\" value=\"\(token)\"", with: "name=\"token\" value=\"\"")
    }

    static func firstDifference(_ a: String, _ b: String) -> String {
        let a = Array(a.utf8), b = Array(b.utf8)
        let at = zip(a, b).prefix { $0 == $1 }.count
        func around(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[max(0, at - 120)..<min(bytes.count, at + 120)], as: UTF8.self)
        }
        return "kept:  …\(around(a))…\nfresh: …\(around(b))…"
    }
}

/// Two Parlors on one SQLite file and one clock: `cachedApp` keeps pages, `freshApp` renders every one.
final class TwinParlors {
    let folder: URL
    let clock = ManualClock(RunningParlor.now)
    let cachedApp: WebFront
    let freshApp: WebFront
    private let servers: [HTTPServer]
    private let liveUpdates: Task<Void, Never>
    var cachedPort: UInt16 { servers[0].port ?? 0 }
    var freshPort: UInt16 { servers[1].port ?? 0 }

    init() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-twins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try SQLiteChatStore(path: folder.appendingPathComponent("parlor.sqlite").path)
        let logger = Logger(label: "parlor-test") { _ in SwiftLogNoOpLogHandler() }
        func configuration(pageCacheBytes: Int) -> WebConfiguration {
            var configuration = WebConfiguration()
            configuration.publicFolder = RunningParlor.repository.appendingPathComponent("Public").path
            configuration.templatesFolder = RunningParlor.repository.appendingPathComponent("Templates").path
            configuration.passwordCost = .minimum
            configuration.pageCacheBytes = pageCacheBytes
            return configuration
        }
        // The kept pages are served on the connection's thread when they can be; the fresh ones always on the pool.
        cachedApp = try await WebFront(
            configuration: configuration(pageCacheBytes: 8 * 1024 * 1024), store: store, images: InMemoryImageService(), immediate: store, clock: clock,
            push: store, logger: logger
        )
        freshApp = try await WebFront(
            configuration: configuration(pageCacheBytes: 0), store: store, images: InMemoryImageService(), clock: clock, push: store, logger: logger
        )
        let app = cachedApp
        liveUpdates = Task { await app.live.run() }
        var servers: [HTTPServer] = []
        for app in [cachedApp, freshApp] {
            var server = ServerConfiguration()
            server.host = "127.0.0.1"
            server.port = 0
            server.threads = 2
            let running = app.makeServer(server, router: try app.makeRouter(), logger: logger)
            try running.start()
            servers.append(running)
        }
        self.servers = servers
    }

    func finish() async {
        for server in servers { await server.shutdown(gracePeriod: .seconds(2)) }
        liveUpdates.cancel()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A small seeded generator, so a failing sequence can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
