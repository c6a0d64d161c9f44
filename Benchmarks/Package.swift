// swift-tools-version:6.1
// Benchmarks live in their own package so that CI never builds them.
import PackageDescription

let package = Package(
    name: "ParlorBenchmarks",
    dependencies: [.package(name: "Parlor", path: "..")],
    targets: [
        .executableTarget(
            name: "parlor-bench-server",
            dependencies: [.product(name: "MicroHTTP", package: "Parlor"), .product(name: "ByteOutput", package: "Parlor")],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
