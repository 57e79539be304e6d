import ClickHouseCluster
import Foundation
import LogStore
import Synchronization
import Testing

/// A store shipped to a real ClickHouse cluster (two replicas of one shard, ZooKeeper between
/// them): the rows it held first and those logged while the shipper runs arrive once each under
/// `FINAL`, through a replica's death; a task's latest state wins; what the size limit deleted
/// before it was shipped arrives as a counted gap; `logstore ship` does the same from the CLI.
@Suite("Shipping to ClickHouse", .serialized, .enabled(if: ClickHouseCluster.isInstalled(replicas: 2), "ClickHouse and ZooKeeper are not installed"))
struct ClickHouseShippingTests {
    static let itemURL = URL(string: "http://catalog.internal/items")!

    static func destination(_ cluster: ClickHouseCluster) -> LogShipper.Destination {
        .clickHouse(ClickHouseDestination(urls: cluster.servers.map(\.httpURL), cluster: cluster.clusterName))
    }

    /// What the store holds now: logged messages (a task's technical message is not shipped:
    /// the task's row says the same) and tasks.
    static func storeCounts(_ url: URL) async throws -> (messages: Int, tasks: Int) {
        try await withStore(at: url, options: []) { store in
            (try await store.count(MessageQuery()), try await store.info().taskCount)
        }
    }

    /// `count()` under `FINAL` and the distinct keys of a table, as `server` sees them.
    static func counts(_ cluster: ClickHouseCluster, _ table: String, server: Int) async throws -> (rows: Int, keys: Int) {
        let answer = try await cluster.query(
            "SELECT count(), uniqExact(node, store, id) FROM default.\(table) FINAL FORMAT TSV", server: server)
        let fields = answer.split(whereSeparator: { $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        return (fields.first ?? -1, fields.dropFirst().first ?? -1)
    }

    /// Waits (bounded) until `server` holds `messages` and `tasks` rows, each key once.
    static func expectArrived(
        _ cluster: ClickHouseCluster, messages: Int, tasks: Int, server: Int, _ comment: Comment
    ) async throws {
        let arrived = Mutex<(Int, Int, Int, Int)>((0, 0, 0, 0))
        do {
            try await waitFor(seconds: 60) {
                let got = try await counts(cluster, "logstore_messages", server: server)
                let gotTasks = try await counts(cluster, "logstore_tasks", server: server)
                arrived.withLock { $0 = (got.rows, got.keys, gotTasks.rows, gotTasks.keys) }
                return got.rows == messages && gotTasks.rows == tasks
            }
        } catch {
            Issue.record("\(comment): server \(server) holds \(arrived.withLock { $0 }), expected \(messages) messages, \(tasks) tasks")
            return
        }
        let (rows, keys, taskRows, taskKeys) = arrived.withLock { $0 }
        #expect(rows == keys && taskRows == taskKeys, "\(comment): each key once")
    }

    @Test(.timeLimit(.minutes(TimeScale.minutes(10))))
    func rowsArriveOnceThroughAReplicasDeath() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 2)
            defer { cluster.stop() }
            try await withTemporaryStoreURL { url in
                // What the store held before the shipper first ran: the backfill.
                try await withStore(at: url) { store in
                    for index in 0..<500 {
                        store.storeMessage(label: "api", level: index % 25 == 0 ? .error : .info, message: "before \(index)",
                                           metadata: ["index": .stringConvertible(index), "user": .dictionary(["id": "u\(index % 7)"])])
                    }
                    for index in 0..<20 {
                        store.storeRequest(
                            NetworkRequest(url: Self.itemURL.appendingPathComponent("\(index)"), method: "GET"),
                            response: NetworkResponse(url: Self.itemURL, statusCode: 200), error: nil, data: Data("ok".utf8))
                    }
                    try await store.flush()
                }

                let app = try await LogStore(storeURL: url, options: [])
                let shipper = try await LogShipper(
                    storeURL: url, configuration: .init(destination: Self.destination(cluster), node: "node-a"))
                let running = Task { try await shipper.run() }
                do {
                    #expect(try await shipper.waitUntilCaughtUp(timeout: .seconds(60)), "the backfill is acknowledged")

                    // The preferred replica dies; what is logged now goes through the other.
                    cluster.kill(server: 0)
                    let network = NetworkLogger(store: app)
                    let pendingID = UUID()
                    network.logTaskCreated(taskID: pendingID, request: NetworkRequest(url: Self.itemURL, method: "POST"))
                    for index in 0..<300 {
                        app.storeMessage(label: "worker", level: .info, message: "during \(index)")
                    }
                    try await app.flush()
                    #expect(try await shipper.waitUntilCaughtUp(timeout: .seconds(60)), "shipped through the surviving replica")
                    let pendingState = try await cluster.query(
                        "SELECT state FROM default.logstore_tasks FINAL WHERE task_id = '\(pendingID.uuidString.lowercased())' FORMAT TSV", server: 1)
                    #expect(pendingState.trimmingCharacters(in: .whitespacesAndNewlines) == "pending")

                    // The task completes: its row is replaced by the later state.
                    network.logTaskCompleted(
                        taskID: pendingID, response: NetworkResponse(url: Self.itemURL, statusCode: 201), error: nil,
                        responseBody: Data("created".utf8))
                    try await app.flush()
                    #expect(try await shipper.waitUntilCaughtUp(timeout: .seconds(60)))
                    try await cluster.restart(server: 0)

                    let status = try await shipper.status()
                    // The dead replica's failures were retried on the other: nothing set aside, no gap.
                    #expect(status.setAsideRows == 0 && status.gapRows == 0, "\(status)")
                    #expect(status.behindChanges == 0)
                    #expect(status.sentRows >= 500 + 20 + 300 + 1)
                } catch {
                    shipper.stop()
                    _ = try? await running.value
                    try? await shipper.close()
                    try? await app.close()
                    throw error
                }
                shipper.stop()
                try await running.value
                try await shipper.close()
                try await app.close()

                let (messages, tasks) = try await Self.storeCounts(url)
                // Both replicas hold everything: the restarted one fetched what it missed.
                try await Self.expectArrived(cluster, messages: messages, tasks: tasks, server: 1, "the surviving replica")
                try await Self.expectArrived(cluster, messages: messages, tasks: tasks, server: 0, "the restarted replica")
                // The counts above cannot tell the task's two states apart (one key): the restarted
                // replica may fetch the later state's part after the earlier one.
                let states = Mutex("")
                do {
                    try await waitFor(seconds: 60) {
                        let got = try await cluster.query(
                            "SELECT state, status_code FROM default.logstore_tasks FINAL WHERE method = 'POST' FORMAT TSV", server: 0)
                        states.withLock { $0 = got.trimmingCharacters(in: .whitespacesAndNewlines) }
                        return states.withLock { $0 } == "success\t201"
                    }
                } catch {
                    Issue.record("the latest state did not win on the restarted replica: \(states.withLock { $0 })")
                }
                let metadata = try await cluster.query(
                    "SELECT metadata_values[indexOf(metadata_keys, 'user')] FROM default.logstore_messages FINAL WHERE text = 'before 3' FORMAT TSV",
                    server: 0)
                #expect(metadata.contains("u3"), "metadata arrives: \(metadata)")
            }
        }
    }

    @Test(.timeLimit(.minutes(TimeScale.minutes(10))))
    func whatTheSizeLimitDeletedArrivesAsACountedGap() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 2)
            defer { cluster.stop() }
            try await withTemporaryStoreURL { url in
                var small = LogStore.Configuration()
                small.sizeLimit = 400_000
                small.overflowPolicy = .waitForSpace
                try await withStore(at: url, configuration: small) { store in
                    store.storeMessage(label: "app", level: .info, message: "first")
                    try await store.flush()
                }
                // The shipper registers and sends what there is, then stops; the app goes on.
                let configuration = LogShipper.Configuration(destination: Self.destination(cluster), node: "node-b")
                let first = try await LogShipper(storeURL: url, configuration: configuration)
                let firstRun = Task { try await first.run() }
                #expect(try await first.waitUntilCaughtUp(timeout: .seconds(60)))
                first.stop()
                try await firstRun.value
                try await first.close()

                let logged = 3_000
                try await withStore(at: url, configuration: small) { store in
                    let padding = String(repeating: "x", count: 300)
                    for index in 0..<logged { store.storeMessage(label: "app", level: .info, message: "\(index) \(padding)") }
                    try await store.flush()
                    _ = try await store.sweep()
                }
                let kept = try await Self.storeCounts(url).messages
                try #require(kept < logged + 1, "the size limit deleted unshipped rows")

                let second = try await LogShipper(storeURL: url, configuration: configuration)
                let secondRun = Task { try await second.run() }
                #expect(try await second.waitUntilCaughtUp(timeout: .seconds(60)))
                let status = try await second.status()
                second.stop()
                try await secondRun.value
                try await second.close()

                try await waitFor(seconds: 60) {
                    let shipped = try await Self.counts(cluster, "logstore_messages", server: 1).rows
                    let gaps = Int(try await cluster.query(
                        "SELECT sum(rows) FROM default.logstore_gaps FINAL WHERE entity = 'message' FORMAT TSV", server: 1)
                        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
                    return shipped + gaps == logged + 1 && gaps > 0
                }
                // "first" was shipped before the sweep deleted it: only the others are a gap.
                #expect(status.gapRows == logged - kept, "\(status)")
            }
        }
    }

    /// A request large enough to be encoded in two halves on two threads arrives whole and in
    /// order: every row once, each with its own text.
    @Test(.timeLimit(.minutes(TimeScale.minutes(10))))
    func aLargeRequestEncodedInTwoHalvesArrivesWhole() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 1)
            defer { cluster.stop() }
            try await withTemporaryStoreURL { url in
                let count = 25_000
                var keepEvery = LogStore.Configuration()
                keepEvery.overflowPolicy = .waitForSpace
                try await withStore(at: url, configuration: keepEvery) { store in
                    for index in 0..<count {
                        store.storeMessage(label: "bulk", level: .info, message: "row \(index)", metadata: ["index": .string("\(index)")])
                    }
                    try await store.flush()
                }
                let configuration = LogShipper.Configuration(
                    destination: .clickHouse(ClickHouseDestination(urls: [cluster.servers[0].httpURL])), node: "node-d")
                let shipper = try await LogShipper(storeURL: url, configuration: configuration)
                let running = Task { try await shipper.run() }
                let caughtUp = try await shipper.waitUntilCaughtUp(timeout: .seconds(120))
                let status = try await shipper.status()
                shipper.stop()
                try await running.value
                try await shipper.close()
                #expect(caughtUp)
                #expect(status.sentRequests == 1, "one request carried the backfill: \(status)")
                let answer = try await cluster.query(
                    "SELECT count(), uniqExact(id), countIf(text = concat('row ', metadata_values[indexOf(metadata_keys, 'index')])) "
                        + "FROM default.logstore_messages FINAL FORMAT TSV")
                #expect(answer.trimmingCharacters(in: .whitespacesAndNewlines) == "\(count)\t\(count)\t\(count)")
            }
        }
    }

    /// A replica killed while it made a replicated table is registered in ZooKeeper (and may
    /// hold the table's parts) but has no table: `CREATE` then fails for good (codes 253, 117).
    /// The next run attaches the table instead, and the replica fetches what the other took.
    @Test(.timeLimit(.minutes(TimeScale.minutes(10))))
    func aReplicaKilledWhileMakingItsTableGetsItOnTheNextRun() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 2)
            defer { cluster.stop() }
            try await withTemporaryStoreURL { url in
                try await withStore(at: url) { store in
                    for index in 0..<50 { store.storeMessage(label: "app", level: .info, message: "before \(index)") }
                    try await store.flush()
                }
                let configuration = LogShipper.Configuration(destination: Self.destination(cluster), node: "node-c")
                func shipUntilCaughtUp() async throws {
                    let shipper = try await LogShipper(storeURL: url, configuration: configuration)
                    let running = Task { try await shipper.run() }
                    let caughtUp = try await shipper.waitUntilCaughtUp(timeout: .seconds(60))
                    shipper.stop()
                    try await running.value
                    try await shipper.close()
                    #expect(caughtUp)
                }
                try await shipUntilCaughtUp()

                // What a kill between ZooKeeper's registration and the table's metadata file leaves.
                cluster.kill(server: 1)
                let metadata = cluster.servers[1].directory
                    .appendingPathComponent("data/metadata/default/logstore_messages_local.sql")
                try FileManager.default.removeItem(at: metadata)
                try await cluster.restart(server: 1)
                let tables = try await cluster.query("SHOW TABLES FROM default FORMAT TSV", server: 1)
                try #require(!tables.contains("logstore_messages_local"), "the replica lost its table: \(tables)")
                let definition = try await cluster.query(
                    "SHOW CREATE TABLE default.logstore_messages_local FORMAT TabSeparatedRaw", server: 0)
                let again = try? await cluster.query(definition, server: 1)
                #expect(again == nil, "making it again fails while the replica is registered")

                try await withStore(at: url) { store in
                    for index in 0..<50 { store.storeMessage(label: "app", level: .info, message: "after \(index)") }
                    try await store.flush()
                }
                try await shipUntilCaughtUp()
                try await Self.expectArrived(cluster, messages: 100, tasks: 0, server: 1, "the replica that lost its table")
            }
        }
    }

    @Test(.timeLimit(.minutes(TimeScale.minutes(10))))
    func theCommandLineShipsUntilCaughtUp() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 2)
            defer { cluster.stop() }
            try await withTemporaryStoreURL { url in
                // An app that keeps no search index: the shipper must not build one for it.
                var unindexed = LogStore.Configuration()
                unindexed.isSearchIndexEnabled = false
                try await withStore(at: url, configuration: unindexed) { store in
                    for index in 0..<1_000 { store.storeMessage(label: "cli", level: .notice, message: "line \(index)") }
                    try await store.flush()
                }
                let urls = cluster.servers.map(\.httpURL.absoluteString).joined(separator: ",")
                let run = try await SpawnedProcess.run(
                    MultiProcessStressTests.commandLine,
                    ["ship", url.path, "--clickhouse", urls, "--cluster", cluster.clusterName, "--node", "cli-node", "--until-caught-up"],
                    seconds: 90)
                #expect(!run.timedOut && run.status == 0, "\(run.output)")
                let stillUnindexed = try await withStore(at: url, options: [.readonly]) { try await $0.info().unindexedMessageCount }
                #expect(stillUnindexed == 1_000, "the shipper left the index to the app")
                let (messages, tasks) = try await Self.storeCounts(url)
                try await Self.expectArrived(cluster, messages: messages, tasks: tasks, server: 1, "after logstore ship")

                let history = try await SpawnedProcess.run(MultiProcessStressTests.commandLine, ["history", url.path], seconds: 30)
                #expect(history.output.contains("shipper:clickhouse"), "\(history.output)")
            }
        }
    }
}
