// swift-tools-version:6.1
import PackageDescription

// Arrows point one way: parlor -> ParlorWeb -> (MicroHTTP, ParlorLive, ParlorViews) -> ParlorEvents -> ParlorDomain;
// .ci/check-dependencies holds each module's layer and fails CI when an arrow points back up.
let package = Package(
    name: "Parlor",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MicroHTTP", targets: ["MicroHTTP"]),
        .library(name: "ByteOutput", targets: ["ByteOutput"]),
        .library(name: "ServerSentEvents", targets: ["ServerSentEvents"]),
        .library(name: "ParlorTemplates", targets: ["ParlorTemplates"]),
        .library(name: "ParlorDomain", targets: ["ParlorDomain"]),
        .library(name: "ParlorStorage", targets: ["ParlorStorage"]),
        .library(name: "ParlorPostgres", targets: ["ParlorPostgres"]),
        .library(name: "ParlorEvents", targets: ["ParlorEvents"]),
        .library(name: "ParlorLive", targets: ["ParlorLive"]),
        .library(name: "ParlorBots", targets: ["ParlorBots"]),
        .library(name: "ParlorViews", targets: ["ParlorViews"]),
        .library(name: "ParlorFixtures", targets: ["ParlorFixtures"]),
        .library(name: "ParlorSnapshotTesting", targets: ["ParlorSnapshotTesting"]),
        .library(name: "ParlorWeb", targets: ["ParlorWeb"]),
        .library(name: "ParlorImages", targets: ["ParlorImages"]),
        .executable(name: "parlor", targets: ["parlor"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Fetching feeds (URLSession on Linux traps on some redirects).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Its decompression, named so a feed that inflates past the limit is told apart by type.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The store, the event log and its wake-ups when several instances share one PostgreSQL server.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Web Push: P-256, HKDF, AES-GCM and ES256 (postgres-nio builds it already).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // Test-only: the reference Mustache renderer Parlor's output must equal byte for byte.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
        // Clocks as values: the live pages, workers and streams take an AnyClock; tests drive a TestClock.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    ],
    targets: [
        // libmicrohttpd from Debian (libmicrohttpd-dev), plus the few inline shims Swift cannot express.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // libsodium from Debian (libsodium-dev): Argon2id password hashes, random tokens, constant-time compare.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // glibc's mallopt (its options are macros): how many arenas keep freed memory (see MallocSettings).
        .systemLibrary(name: "CMalloc"),
        // libvips from Debian (libvips-dev): decoding, resizing and encoding uploaded images. A C target of
        // fixed-arity wrappers whose header keeps images opaque; only its .c file sees libvips's and GLib's
        // headers (pkg-config's flags for vips include -pthread, which SwiftPM refuses with a warning).
        .target(
            name: "CVips",
            cSettings: [.unsafeFlags([
                "-I/usr/include/glib-2.0", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include", "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include",
            ])],
            linkerSettings: [.linkedLibrary("vips"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // Threads of their own for slow, blocking work, with a waiting limit: password hashes, images; the batching
        // queue of the stores' group commits; and the one queue every background worker waits in (WorkerQueue).
        .target(name: "BoundedWork"),
        // The image service on libvips: accepted by their bytes, bounded by their headers, stripped, resized.
        .target(name: "ParlorImages", dependencies: ["CVips", "ParlorDomain", "BoundedWork", .product(name: "Logging", package: "swift-log")]),
        // A growable byte buffer shared by the renderer and the HTTP front; no dependencies.
        .target(name: "ByteOutput"),
        // Server-Sent Events in wire format and the ring that holds each once: what the live pages encode an
        // update into and the HTTP server's streams send, named by both; no dependencies.
        .target(name: "ServerSentEvents"),
        // Parlor's Mustache compiler and renderer: view models read through key-path tables, checked at load.
        .target(name: "ParlorTemplates", dependencies: ["ByteOutput"]),
        // Users, chats, messages: plain values, no I/O.
        .target(name: "ParlorDomain"),
        // The SQLite store on GRDB: migrations, the chat-list query, group commits.
        .target(name: "ParlorStorage", dependencies: [
            "ParlorDomain", "BoundedWork", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        // The PostgreSQL store on postgres-nio, for several instances on one server: the same protocols as the
        // SQLite store, the event log written with each change, and the bus that reads it on every instance.
        .target(
            name: "ParlorPostgres",
            dependencies: [
                "ParlorDomain", "ParlorEvents", "BoundedWork",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The one path of every change: EventRouter (validate, store, publish) and the in-process bus. Domain only,
        // so a store or bus built on it links no view or template.
        .target(name: "ParlorEvents", dependencies: ["ParlorDomain", .product(name: "Logging", package: "swift-log")]),
        // The live pages: the consumer of the bus, the listeners of each screen, what they know between events,
        // fragments rendered once for every page that shows them.
        .target(
            name: "ParlorLive",
            dependencies: [
                "ParlorEvents", "ParlorDomain", "ParlorViews", "ParlorTemplates", "ByteOutput", "ServerSentEvents",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        // Event sources outside the core: Parlor Bot. They see the router as an `EventSink` and nothing of views.
        .target(name: "ParlorBots", dependencies: ["ParlorDomain", .product(name: "Logging", package: "swift-log")]),
        // View models (one per screen and cell), the builders that format domain values into them.
        .target(name: "ParlorViews", dependencies: ["ParlorTemplates", "ParlorDomain"]),
        // Every view model in every state, for snapshot tests and the /gallery page.
        .target(name: "ParlorFixtures", dependencies: ["ParlorViews", "ParlorTemplates", "ParlorDomain", "ByteOutput"]),
        // The `.html` snapshot strategy, for people who test their Parlor screens.
        .target(
            name: "ParlorSnapshotTesting",
            dependencies: ["ParlorTemplates", .product(name: "SnapshotTesting", package: "swift-snapshot-testing")]
        ),
        .target(
            name: "MicroHTTP",
            dependencies: [
                "CMicroHTTPD",
                "ByteOutput",
                "ServerSentEvents",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The chat on the web: accounts and sessions, the routes, event streams feeding open pages.
        .target(
            name: "ParlorWeb",
            dependencies: [
                "MicroHTTP", "ServerSentEvents", "CSodium", "ParlorDomain", "ParlorEvents", "ParlorLive", "ParlorViews", "ParlorImages", "ParlorBots",
                "ParlorTemplates", "ByteOutput", "BoundedWork", "ParlorPush", "ParlorNotifications", "ParlorFeeds", "ParlorFeedsHTTP", "OutboundHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        // libxml2 from Debian (libxml2-dev): feeds' XML, read into a tree, through an opaque header (libxml2's
        // own include ICU's, which clash with Foundation's).
        .target(name: "CXML2", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])], linkerSettings: [.linkedLibrary("xml2")]),
        // Feeds: RSS, RDF, Atom and JSON Feed read into what a subscription posts.
        .target(
            name: "ParlorFeeds",
            dependencies: [
                "CXML2", "ParlorDomain", "BoundedWork", .product(name: "Logging", package: "swift-log"), .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        // Requests to addresses people and bots give Parlor, under one set of rules (the address policy, pinned
        // resolution, redirects checked hop by hop, size and time limits), on AsyncHTTPClient: what feeds, link cards,
        // Web Push and bots' webhooks send through. Apart from the parsers, so their fuzz targets build without it.
        .target(
            name: "OutboundHTTP",
            dependencies: [
                "BoundedWork", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        // The feed fetcher: a conditional GET through the outbound rules.
        .target(name: "ParlorFeedsHTTP", dependencies: ["ParlorFeeds", "ParlorDomain", "OutboundHTTP"]),
        // Web Push (RFC 8291 payload encryption, RFC 8292 VAPID): what a notification to a closed tab needs.
        .target(name: "ParlorPush", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Who is told of a message by Web Push, and the queue that sends the pushes through the feeds' outbound rules.
        .target(
            name: "ParlorNotifications",
            dependencies: [
                "ParlorPush", "ParlorDomain", "ParlorFeeds", "OutboundHTTP", "BoundedWork",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .executableTarget(
            name: "parlor",
            dependencies: [
                "MicroHTTP", "ServerSentEvents", "ParlorWeb", "ParlorTemplates", "ParlorStorage", "ParlorBots", "ParlorDomain", "ParlorEvents",
                "ParlorFixtures", "ParlorViews", "ParlorImages", "CMalloc", "ParlorFeeds", "ParlorFeedsHTTP", "ParlorPostgres", "ParlorLive",
                "ParlorPush", "ParlorNotifications", "OutboundHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        // A raw-socket HTTP client for tests that must control connections byte by byte.
        .target(name: "HTTPTestSupport", path: "Tests/HTTPTestSupport"),
        // The stores in memory, for tests only: the reference the store behaviour suite holds SQLite and PostgreSQL to.
        .target(name: "InMemoryStores", dependencies: ["ParlorDomain"], path: "Tests/InMemoryStores"),
        .testTarget(name: "ByteOutputTests", dependencies: ["ByteOutput"]),
        // The workers' queue, without a server.
        .testTarget(name: "BoundedWorkTests", dependencies: ["BoundedWork", "HTTPTestSupport"]),
        // The domain's rules as pure values: mentions, room names.
        .testTarget(name: "ParlorDomainTests", dependencies: ["ParlorDomain"]),
        // Writes messages until it is killed; the crash test kills it and checks what it acknowledged.
        .executableTarget(name: "parlor-store-writer", dependencies: ["ParlorStorage", "ParlorDomain"], path: "Tests/StoreWriter"),
        .testTarget(
            name: "ParlorStorageTests",
            dependencies: ["InMemoryStores", "ParlorStorage", "ParlorPostgres", "ParlorEvents", "ParlorDomain", "HTTPTestSupport", "parlor-store-writer",
                .product(name: "Logging", package: "swift-log"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ParlorEventsTests",
            dependencies: [
                "InMemoryStores",
                "ParlorEvents", "ParlorLive", "ParlorBots", "ParlorStorage", "ParlorDomain", "ParlorViews", "ParlorTemplates", "ByteOutput",
                "ParlorFeeds", "HTTPTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .testTarget(
            name: "ParlorViewsTests",
            dependencies: [
                "ParlorViews", "ParlorFixtures", "ParlorTemplates", "ParlorDomain", "ByteOutput", "ParlorSnapshotTesting",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
            ],
            exclude: ["__Snapshots__"]
        ),
        .testTarget(
            name: "ParlorTemplatesTests",
            dependencies: ["ParlorTemplates", "ByteOutput", .product(name: "Mustache", package: "swift-mustache")]
        ),
        .testTarget(
            name: "MicroHTTPTests",
            dependencies: ["MicroHTTP", "ServerSentEvents", "ByteOutput", "HTTPTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // Runs the built `parlor` executable as a person would.
        .testTarget(
            name: "ParlorPushTests",
            dependencies: [
                "InMemoryStores",
                "OutboundHTTP", "ParlorPush", "ParlorNotifications", "ParlorDomain", "ParlorFeeds", "HTTPTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .testTarget(name: "ParlorFeedsTests", dependencies: ["ParlorFeeds", "ParlorFeedsHTTP", "OutboundHTTP", "ParlorDomain", "HTTPTestSupport"]),
        // The outbound rules and client, against a scripted server on loopback.
        .testTarget(name: "OutboundHTTPTests", dependencies: ["OutboundHTTP", "HTTPTestSupport"]),
        .testTarget(name: "ParlorTests", dependencies: ["parlor", "HTTPTestSupport", "ParlorStorage", "ParlorDomain"]),
        // The web front in process, over HTTP on loopback, with a real SQLite file, wired as `parlor` wires it.
        .testTarget(
            name: "ParlorWebTests",
            dependencies: [
                "parlor", "ParlorWeb", "MicroHTTP", "ServerSentEvents", "ParlorDomain", "ParlorEvents", "ParlorLive", "ParlorStorage", "ParlorBots", "ParlorImages",
                "HTTPTestSupport",
                "BoundedWork", "ParlorPush", "ParlorNotifications",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        // Real libvips on files the tests make.
        .testTarget(name: "ParlorImagesTests", dependencies: ["ParlorImages", "CVips", "ParlorDomain"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets over every parser of outside bytes (Tests/Fuzz). They have no main of their own:
// libFuzzer's is linked in by `--sanitize=fuzzer`, so they are declared only for `bash Tests/Fuzz/run`,
// which sets PARLOR_FUZZ and builds them with address sanitizer into a scratch folder of their own.
if Context.environment["PARLOR_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzRequestPath", ["MicroHTTP", "CMicroHTTPD"]),
        ("FuzzQuery", ["MicroHTTP", "CMicroHTTPD"]),
        ("FuzzURLEncodedForm", ["MicroHTTP"]),
        ("FuzzMultipartForm", ["MicroHTTP"]),
        ("FuzzMultipartStream", ["MicroHTTP"]),
        ("FuzzUploadAdmission", ["MicroHTTP"]),
        ("FuzzForwardedChain", ["MicroHTTP", "CMicroHTTPD"]),
        ("FuzzCookies", ["MicroHTTP"]),
        ("FuzzHTTPDate", ["MicroHTTP"]),
        ("FuzzRequestFraming", ["MicroHTTP"]),
        ("FuzzRouteParameters", ["MicroHTTP"]),
        ("FuzzLastEventID", ["ServerSentEvents"]),
        ("FuzzTemplate", ["ParlorTemplates", "ByteOutput"]),
        ("FuzzLinkifier", ["ParlorViews"]),
        ("FuzzMentions", ["ParlorDomain"]),
        ("FuzzTextExcerpt", ["ParlorViews"]),
        ("FuzzMessageFormat", ["ParlorViews", "ParlorDomain"]),
        ("FuzzSearchQuery", ["ParlorDomain"]),
        ("FuzzSearchSnippet", ["ParlorViews", "ParlorDomain"]),
        ("FuzzImageSniffing", ["ParlorDomain"]),
        ("FuzzJPEGFrame", ["ParlorDomain"]),
        ("FuzzFeedParser", ["ParlorFeeds", "ParlorDomain"]),
        ("FuzzFeedDiscovery", ["ParlorFeeds"]),
        ("FuzzPushSubscription", ["MicroHTTP", "ParlorPush"]),
        ("FuzzStreamQuery", ["ParlorLive", "ParlorDomain"]),
        ("FuzzReactionText", ["ParlorDomain", "ParlorViews"]),
        ("FuzzBotRequest", ["ParlorBots", "ParlorFeeds"]),
        ("FuzzPagePreview", ["ParlorFeeds"]),
    ]
    for (name, dependencies) in fuzzTargets {
        package.targets.append(.executableTarget(
            name: name, dependencies: dependencies, path: "Tests/Fuzz/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ))
    }
    // Only the fuzz targets and the targets they link are declared then, so one `swift build` builds them all: built
    // one product at a time, each build spent more time planning the package again than compiling.
    let declared = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var needed = Set<String>()
    var waiting = fuzzTargets.map(\.name)
    while let name = waiting.popLast() {
        guard let target = declared[name], needed.insert(name).inserted else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): waiting.append(name)
            default: break
            }
        }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products.removeAll()
}
