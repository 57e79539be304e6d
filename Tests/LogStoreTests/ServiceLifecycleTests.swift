#if ServiceLifecycle
import Foundation
import LogStore
import LogStoreConsole
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

/// `LogStoreService` in a real `ServiceGroup`: on graceful shutdown every message logged before
/// the store's turn is committed, and the store is closed.
@Suite("ServiceLifecycle service")
struct ServiceLifecycleTests {
    /// A service that logs to the store until shutdown, and once more while it stops (as a
    /// server logs its last requests).
    struct Worker: Service {
        let store: LogStore
        let started: AsyncStream<Void>.Continuation

        func run() async throws {
            store.storeMessage(label: "worker", level: .info, message: "started")
            started.yield()
            try await gracefulShutdown()
            for index in 0..<50 {
                store.storeMessage(label: "worker", level: .info, message: "draining \(index)")
            }
            store.storeMessage(label: "worker", level: .notice, message: "stopped")
        }
    }

    static let quiet = Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func gracefulShutdownCommitsEverythingAndCloses() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            // The store first: the group stops its services in reverse order, so it closes last.
            let group = ServiceGroup(
                services: [LogStoreService(store: store), Worker(store: store, started: startedContinuation)],
                logger: Self.quiet)
            try await withinTimeLimit(seconds: 60) {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    for await _ in started { break }
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
            }
            await #expect(throws: LogStoreError.closed) { try await store.flush() }

            let reopened = try await LogStore(storeURL: url, options: [.readonly])
            let texts = try await reopened.messages(MessageQuery(labels: ["worker"], order: .oldestFirst, limit: 100))
                .messages.map(\.text)
            try await reopened.close()
            #expect(texts == ["started"] + (0..<50).map { "draining \($0)" } + ["stopped"])
        }
    }

    @Test func cancellationClosesTheStoreToo() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            store.storeMessage(label: "app", level: .info, message: "before cancel")
            let service = LogStoreService(store: store)
            let run = Task { try await service.run() }
            run.cancel()
            try await withinTimeLimit(seconds: 60) { try await run.value }
            await #expect(throws: LogStoreError.closed) { try await store.flush() }

            let reopened = try await LogStore(storeURL: url, options: [.readonly])
            let count = try await reopened.count(MessageQuery(labels: ["app"]))
            try await reopened.close()
            #expect(count == 1)
        }
    }

    @Test func aStoreClosedElsewhereShutsDownCleanly() async throws {
        try await withTemporaryStore { store, _ in
            try await withinTimeLimit(seconds: 60) {
                try await testGracefulShutdown { trigger in
                    try await withThrowingTaskGroup(of: Void.self) { tasks in
                        tasks.addTask { try await LogStoreService(store: store).run() }
                        store.storeMessage(label: "app", level: .info, message: "closed by the app")
                        try await store.close()
                        trigger.triggerGracefulShutdown()
                        try await tasks.waitForAll()
                    }
                }
            }
            await #expect(throws: LogStoreError.closed) { try await store.flush() }
        }
    }

    /// The console as a service beside the store's: it answers while the group runs, and stops
    /// (its port closed) before the store closes.
    @Test func theConsoleServiceServesUntilShutdown() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            store.storeMessage(label: "app", level: .info, message: "served")
            try await store.flush()
            let (started, startedContinuation) = AsyncStream<LogStoreConsole>.makeStream()
            let group = ServiceGroup(
                services: [LogStoreService(store: store), LogStoreConsoleService(store: store) { startedContinuation.yield($0) }],
                logger: Self.quiet)
            try await withinTimeLimit(seconds: 60) {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    var console: LogStoreConsole?
                    for await started in started {
                        console = started
                        break
                    }
                    let running = try #require(console)
                    let token = try #require(URLComponents(url: running.url, resolvingAgainstBaseURL: false)?
                        .queryItems?.first { $0.name == "token" }?.value)
                    let client = ConsoleClient(port: running.port)
                    let page = try await client.get("/api/messages", headers: [("Authorization", "Bearer \(token)")])
                    #expect(page.text.contains("served"))
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                    await #expect(throws: ConsoleClient.Failure.self) { _ = try await client.get("/api/info", seconds: 2) }
                }
            }
            await #expect(throws: LogStoreError.closed) { try await store.flush() }
        }
    }

    /// A shipper as a service beside the store's: it ships (here to a port nothing listens on,
    /// so it keeps retrying) until the group shuts down, then stops and closes before the store.
    @Test func theShipperServiceStopsAtShutdownBeforeTheStore() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            store.storeMessage(label: "app", level: .info, message: "to ship")
            try await store.flush()
            let nowhere = try #require(URL(string: "http://127.0.0.1:9/"))
            let shipper = try await LogShipper(
                storeURL: url, configuration: .init(destination: .clickHouse(ClickHouseDestination(urls: [nowhere]))))
            let group = ServiceGroup(
                services: [LogStoreService(store: store), LogShipperService(shipper: shipper)], logger: Self.quiet)
            try await withinTimeLimit(seconds: 60) {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    // Running: its first request failed and is being retried.
                    for await event in shipper.events() {
                        if case .retrying = event { break }
                    }
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
            }
            await #expect(throws: LogStoreError.closed) { try await shipper.store.flush() }
            await #expect(throws: LogStoreError.closed) { try await store.flush() }
            let status = try await withStore(at: url, options: []) { store in try await store.info().shippers }
            #expect(status.first?.retries ?? 0 >= 1)
            #expect(status.first?.sentRows == 0, "nothing was acknowledged: it all goes with the next run")
        }
    }
}
#endif
