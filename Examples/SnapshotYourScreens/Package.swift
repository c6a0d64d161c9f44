// swift-tools-version:6.1
// How a package outside Parlor snapshot-tests screens: every Parlor fixture through Parlor's own templates,
// and a view model of its own with its own template. `.ci/run` builds and runs it with CI=true, so it follows
// every change to the API it shows.
import PackageDescription

let package = Package(
    name: "SnapshotYourScreens",
    dependencies: [
        // Parlor, by path: a checkout of Parlor two folders up.
        .package(name: "Parlor", path: "../.."),
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
    ],
    targets: [
        .testTarget(
            name: "SnapshotYourScreensTests",
            dependencies: [
                .product(name: "ParlorSnapshotTesting", package: "Parlor"),
                .product(name: "ParlorFixtures", package: "Parlor"),
                .product(name: "ParlorTemplates", package: "Parlor"),
                .product(name: "ParlorViews", package: "Parlor"),
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
            ],
            // Read by the snapshot strategy from beside the tests, not built as resources.
            exclude: ["__Snapshots__"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
