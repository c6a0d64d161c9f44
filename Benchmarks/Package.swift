// swift-tools-version:6.1
// Benchmarks live in their own package so that CI never builds them.
import PackageDescription

let package = Package(
    name: "ParlorBenchmarks",
    dependencies: [
        .package(name: "Parlor", path: ".."),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "parlor-bench-server",
            dependencies: [
                .product(name: "MicroHTTP", package: "Parlor"), .product(name: "ServerSentEvents", package: "Parlor"),
                .product(name: "ByteOutput", package: "Parlor"),
            ],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        ),
        // Defines malloc and friends in the benchmark executable to count every allocation of the process.
        .target(name: "AllocationCounter"),
        .executableTarget(
            name: "parlor-render-bench",
            dependencies: [
                "AllocationCounter",
                .product(name: "ParlorViews", package: "Parlor"),
                .product(name: "ParlorFixtures", package: "Parlor"),
                .product(name: "ParlorTemplates", package: "Parlor"),
                .product(name: "ParlorDomain", package: "Parlor"),
                .product(name: "ByteOutput", package: "Parlor"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        .executableTarget(
            name: "parlor-image-bench",
            dependencies: [.product(name: "ParlorImages", package: "Parlor"), .product(name: "ParlorDomain", package: "Parlor")]
        ),
        .executableTarget(
            name: "parlor-day-fill",
            dependencies: [.product(name: "ParlorStorage", package: "Parlor"), .product(name: "ParlorDomain", package: "Parlor")]
        ),
        .executableTarget(
            name: "parlor-search-bench",
            dependencies: [
                .product(name: "ParlorStorage", package: "Parlor"),
                .product(name: "ParlorDomain", package: "Parlor"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "parlor-store-bench",
            dependencies: [
                .product(name: "ParlorStorage", package: "Parlor"),
                .product(name: "ParlorDomain", package: "Parlor"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
