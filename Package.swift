// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LogStore",
    products: [
        .library(name: "LogStore", targets: ["LogStore"]),
        // Empty unless the Hummingbird trait is on; a module of its own keeps NIO out of LogStore.
        .library(name: "LogStoreHummingbird", targets: ["LogStoreHummingbird"]),
        // The live console: `logstore serve`, or started inside an app beside its store.
        .library(name: "LogStoreConsole", targets: ["LogStoreConsole"]),
        .executable(name: "logstore", targets: ["logstore"]),
        .executable(name: "logstore-bench", targets: ["LogStoreBench"]),
    ],
    // All off by default: a disabled trait's package is never fetched, so the default build
    // needs no network and no outside package.
    traits: [
        .trait(
            name: "SwiftLog",
            description: "LogStoreLogHandler: a swift-log LogHandler that writes to a store (swift-log 1.12.0 or later)."),
        .trait(
            name: "ServiceLifecycle",
            description: "LogStoreService and LogStoreConsoleService: the store and its console as swift-service-lifecycle Services, closed on graceful shutdown."),
        .trait(
            name: "Hummingbird",
            description: "LogStoreRequestMiddleware (module LogStoreHummingbird): records the requests a Hummingbird 2 server handles; LogStoreConsoleRoutes (module LogStoreConsole): the console mounted in a Hummingbird 2 application."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // 1.12.0 is the first release whose LogEvent carries the error; its manifest needs Swift 6.2 tools.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.12.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.8.0"),
        // RouterMiddleware, Request.collectBody(upTo:) and ResponseBodyWriter all exist from 2.0.0 on.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        // HTTPField's names, for the console's response fields under Hummingbird (a dependency of it).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // epoll, eventfd and accept4 from the C library, for LogStoreConsole's HTTP server;
        // posix_spawn's closefrom for ClickHouseCluster's children; thread names for LogStore's.
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // LZ4's block format, for ClickHouse's compressed-block request bodies (cheaper than gzip).
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        .target(
            name: "LogStore",
            dependencies: [
                "CSQLite", "CZlib", "CLZ4", "CLinux",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["SwiftLog"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
            ],
            // The HTML viewer's script and style are .js and .css files, compiled in as string
            // constants (no resource bundle: the library must work as a bare binary).
            exclude: ["Export/HTML/HTMLPageScript.js", "Export/HTML/HTMLPageStyle.css"],
            plugins: ["EmbedViewerAssets"]
        ),
        // Build-time only: turns those files into Swift (EmbedText writes it, the plugin runs it).
        .executableTarget(name: "EmbedText"),
        .plugin(name: "EmbedViewerAssets", capability: .buildTool(), dependencies: ["EmbedText"]),
        .target(
            name: "LogStoreHummingbird",
            dependencies: [
                "LogStore",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
            ]
        ),
        // The live console over a store: a small HTTP/1.1 server of its own (POSIX sockets,
        // epoll), its routes, pages and file browser.
        .target(
            name: "LogStoreConsole",
            dependencies: [
                "LogStore", "CSQLite", "CLinux",
                // Under Hummingbird too: mounted live tails end on the application's graceful shutdown.
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle", "Hummingbird"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
            ],
            exclude: ["Page/ConsolePage.js", "Page/ConsolePage.css"],
            plugins: ["EmbedViewerAssets"]
        ),
        // `logstore demo`'s generator: a realistic store, written through LogStore's public API.
        .target(
            name: "LogStoreDemo",
            dependencies: ["LogStore"]
        ),
        .target(
            name: "LogStoreCLI",
            dependencies: ["LogStore", "LogStoreDemo", "LogStoreConsole"]
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
        // A real local ClickHouse cluster (ZooKeeper and N replicas) for the tests and the
        // benchmark; Debian's clickhouse-server and zookeeper packages, nothing from outside.
        .target(name: "ClickHouseCluster", dependencies: ["CLinux"]),
        .executableTarget(
            name: "LogStoreBench",
            dependencies: [
                "LogStore", "LogStoreConsole", "CBenchBaseline", "ClickHouseCluster",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["SwiftLog"])),
            ]
        ),
        // A child process for the tests that need one (ExitDrainTests): logs, then ends without close().
        .executableTarget(
            name: "LogStoreTestHelper",
            dependencies: ["LogStore"]
        ),
        // Examples/README.md: `swift run logstore-example`.
        .executableTarget(
            name: "logstore-example",
            dependencies: [
                "LogStore",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["SwiftLog"])),
            ],
            path: "Examples/Quickstart"
        ),
        .testTarget(
            name: "LogStoreTests",
            dependencies: [
                "LogStore", "LogStoreCLI", "LogStoreConsole", "LogStoreDemo", "LogStoreHummingbird", "ClickHouseCluster",
                // ServiceLifecycle's tests build a ServiceGroup, and Hummingbird's an Application: both take a Logger.
                .product(
                    name: "Logging", package: "swift-log",
                    condition: .when(traits: ["SwiftLog", "ServiceLifecycle", "Hummingbird"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
                .product(
                    name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
            ],
            // The OTLP receiver the shipping tests run (python3), not a source of the target.
            exclude: ["Support/otlp_receiver.py"]
        ),
        // The Swift blocks of the README and the DocC articles, one file each, compiled and never
        // run, so a renamed API breaks the build and not the reader: Scripts/snippets.py writes
        // Generated/ from them, DocSnippetsTests checks it is current. A warning fails too.
        .testTarget(
            name: "SnippetTests",
            dependencies: ["LogStore", "LogStoreConsole"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
    ]
)

// Strict settings for every Swift target, set once.
for target in package.targets
    where target.type != .system && target.type != .plugin && target.name != "CBenchBaseline" {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
