// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LogStore",
    products: [
        .library(name: "LogStore", targets: ["LogStore"]),
        .executable(name: "logstore", targets: ["logstore"]),
        .executable(name: "logstore-bench", targets: ["LogStoreBench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "LogStore",
            dependencies: ["CSQLite", "CZlib"]
        ),
        .target(
            name: "LogStoreCLI",
            dependencies: ["LogStore"]
        ),
        .executableTarget(
            name: "logstore",
            dependencies: ["LogStoreCLI"]
        ),
        .target(
            name: "CBenchBaseline",
            dependencies: ["CSQLite"],
            linkerSettings: [.linkedLibrary("z")]
        ),
        .executableTarget(
            name: "LogStoreBench",
            dependencies: ["LogStore", "CBenchBaseline"]
        ),
        // A child process for the tests that need one (ExitDrainTests): logs, then ends without close().
        .executableTarget(
            name: "LogStoreTestHelper",
            dependencies: ["LogStore"]
        ),
        // Examples/README.md: `swift run logstore-example`.
        .executableTarget(
            name: "logstore-example",
            dependencies: ["LogStore"],
            path: "Examples/Quickstart"
        ),
        .testTarget(
            name: "LogStoreTests",
            dependencies: ["LogStore", "LogStoreCLI"]
        ),
    ]
)

// Strict settings for every Swift target, set once.
for target in package.targets where target.type != .system && target.name != "CBenchBaseline" {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
