import ClickHouseCluster
import Foundation
import Glibc
import LogStore
import Synchronization
import Testing

/// Exactness under faults: three node processes, each logging messages and tasks into a store
/// of its own while a `logstore ship` process ships it to a two-replica ClickHouse cluster; at
/// random moments a shipper or a ClickHouse server is killed with SIGKILL and started again.
/// Afterwards every node's rows are in ClickHouse once each under `FINAL` — nothing lost,
/// nothing twice — and no gap was needed (the stores' size limit was never reached).
///
/// The nodes share the loopback interface: network namespaces would need the test to run as
/// root with `ip` and a bridge, and would test the kernel's routing, not the shipper; what a
/// partition does to a shipper (a refused or timed-out connection) a killed server does too.
/// `LOGSTORE_FLEET_TRIALS` sets the trials (1 by default), `LOGSTORE_FLEET_SEED` repeats a
/// run's moments.
@Suite("Fleet under faults", .serialized, .enabled(if: ClickHouseCluster.isInstalled(replicas: 2), "ClickHouse and ZooKeeper are not installed"))
struct FleetFaultTests {
    static let trials = ProcessInfo.processInfo.environment["LOGSTORE_FLEET_TRIALS"].flatMap { Int($0) } ?? 1
    static let seed = ProcessInfo.processInfo.environment["LOGSTORE_FLEET_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 0...UInt64.max)
    static let nodes = 3
    static let messagesPerNode = 6_000
    static let messagesPerSecond = 1_000

    /// One node: its store, the process logging into it and the one shipping it.
    final class Node: @unchecked Sendable {  // used by one task at a time: the test's
        let name: String
        let store: URL
        let output: URL
        let shipLog: URL
        var logger: ChildProcess?
        var shipper: ChildProcess?

        init(name: String, directory: URL) {
            self.name = name
            store = directory.appendingPathComponent("\(name).logstore")
            output = directory.appendingPathComponent("\(name).out")
            shipLog = directory.appendingPathComponent("\(name).ship.log")
        }
    }

    static func shipArguments(_ node: Node, _ cluster: ClickHouseCluster, untilCaughtUp: Bool) -> [String] {
        ["ship", node.store.path, "--clickhouse", cluster.servers.map(\.httpURL.absoluteString).joined(separator: ","),
         "--cluster", cluster.clusterName, "--node", node.name] + (untilCaughtUp ? ["--until-caught-up"] : [])
    }

    /// `logstore ship` for `node`, its output appended to the node's shipping log.
    static func startShipper(_ node: Node, _ cluster: ClickHouseCluster) throws -> ChildProcess {
        if !FileManager.default.fileExists(atPath: node.shipLog.path) {
            try Data().write(to: node.shipLog)
        }
        let log = try FileHandle(forWritingTo: node.shipLog)
        defer { try? log.close() }
        try log.seekToEnd()
        return try ChildProcess(
            MultiProcessStressTests.commandLine, shipArguments(node, cluster, untilCaughtUp: false), standardOutput: .file(log))
    }

    @Test(.timeLimit(.minutes(TimeScale.minutes(6))))
    func killedShippersAndServersLoseNothingAndDuplicateNothing() async throws {
        var random = SeededRandom(seed: Self.seed)
        var shipperKills = 0
        var serverKills = 0
        var rowsChecked = 0
        for _ in 0..<Self.trials {
            try await asHeavyTest {
                let cluster = try await ClickHouseCluster.start(replicas: 2)
                defer { cluster.stop() }
                try await withTemporaryDirectory { directory in
                    let nodes = (1...Self.nodes).map { Node(name: "node-\($0)", directory: directory) }
                    for node in nodes { try await withStore(at: node.store) { _ in } }
                    defer {
                        for node in nodes {
                            node.logger?.stop()
                            node.shipper?.stop()
                        }
                    }
                    for node in nodes {
                        try #require(FileManager.default.createFile(atPath: node.output.path, contents: nil))
                        let output = try FileHandle(forWritingTo: node.output)
                        node.logger = try ChildProcess(
                            testHelperExecutable, ["node", node.store.path, "\(Self.messagesPerNode)", "\(Self.messagesPerSecond)"],
                            standardOutput: .file(output))
                        try output.close()
                        node.shipper = try Self.startShipper(node, cluster)
                    }

                    // Faults while the nodes log: a shipper killed and started again at once, or a
                    // server killed and restarted a moment later.
                    let loggingEnds = ContinuousClock.now + .seconds(Double(Self.messagesPerNode) / Double(Self.messagesPerSecond))
                    while ContinuousClock.now < loggingEnds {
                        try await Task.sleep(for: .milliseconds(Int.random(in: 200...900, using: &random)))
                        if Bool.random(using: &random) {
                            let node = nodes[Int.random(in: 0..<nodes.count, using: &random)]
                            node.shipper?.stop()
                            _ = try await node.shipper?.waitForExit(seconds: 10)
                            node.shipper = try Self.startShipper(node, cluster)
                            shipperKills += 1
                        } else {
                            let server = Int.random(in: 0..<cluster.servers.count, using: &random)
                            cluster.kill(server: server)
                            serverKills += 1
                            try await Task.sleep(for: .milliseconds(Int.random(in: 100...1_500, using: &random)))
                            try await cluster.restart(server: server)
                        }
                    }

                    var expected: [String: (messages: Int, tasks: Int)] = [:]
                    for node in nodes {
                        #expect(try await node.logger?.waitForExit(seconds: 120) == 0, "\(node.name) logged to its end")
                        let said = (try? String(contentsOf: node.output, encoding: .utf8)) ?? ""
                        let fields = said.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                        try #require(fields.count == 2, "\(node.name) said \(said)")
                        expected[node.name] = (fields[0], fields[1])
                        let stored = try await withStore(at: node.store, options: []) { store in
                            (messages: try await store.count(MessageQuery()), tasks: try await store.info().taskCount)
                        }
                        #expect(stored.messages == fields[0] && stored.tasks == fields[1], "\(node.name) kept what it logged: \(stored)")
                    }
                    // A restarted server answers before its ZooKeeper session is back, and cannot make
                    // a replicated table until it is: the catch-up runs below make the tables of a
                    // replica that was down, so they wait for it (a shipper that meets it first tries again later).
                    for server in cluster.servers.indices {
                        try await waitFor(seconds: 60) {
                            (try? await cluster.query("SELECT count() FROM system.zookeeper WHERE path = '/'", server: server)) != nil
                        }
                    }
                    // The running shippers stop after their batch in flight; one more run each catches up.
                    for node in nodes {
                        node.shipper?.signal(SIGTERM)
                        let stopped = try await node.shipper?.waitForExit(seconds: 60)
                        #expect(stopped == 0, "\(node.name)'s shipper stopped on SIGTERM: \(String(describing: stopped)), said \((try? String(contentsOf: node.shipLog, encoding: .utf8)) ?? "")")
                        let run = try await SpawnedProcess.run(
                            MultiProcessStressTests.commandLine, Self.shipArguments(node, cluster, untilCaughtUp: true), seconds: 120)
                        #expect(!run.timedOut && run.status == 0, "\(node.name): \(run.output)")
                    }

                    let want = expected
                    for server in cluster.servers.indices {
                        for (table, pick) in [("logstore_messages", { (counts: (messages: Int, tasks: Int)) in counts.messages }),
                                              ("logstore_tasks", { (counts: (messages: Int, tasks: Int)) in counts.tasks })] {
                            let expectedLines = nodes.map { node in
                                let count = want[node.name].map(pick) ?? -1
                                return "\(node.name)\t\(count)\t\(count)"
                            }.joined(separator: "\n")
                            let last = Mutex("")
                            do {
                                try await waitFor(seconds: 60) {
                                    let answer = try await cluster.query(
                                        "SELECT node, count(), uniqExact(node, store, id) FROM default.\(table) FINAL GROUP BY node ORDER BY node FORMAT TSV",
                                        server: server)
                                    last.withLock { $0 = answer }
                                    return answer.trimmingCharacters(in: .whitespacesAndNewlines) == expectedLines
                                }
                            } catch {
                                Issue.record("server \(server), \(table): \(last.withLock { $0 }) (expected \(expectedLines))")
                            }
                        }
                        let gaps = try await cluster.query("SELECT count() FROM default.logstore_gaps FINAL FORMAT TSV", server: server)
                        #expect(gaps.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "no gap: the size limit was never reached")
                    }
                    rowsChecked += expected.values.reduce(0) { $0 + $1.messages + $1.tasks }
                }
            }
        }
        print("fleet faults: \(Self.trials) trials (seed \(Self.seed)), \(Self.nodes) nodes each, \(shipperKills) shippers and \(serverKills) ClickHouse servers killed with SIGKILL, \(rowsChecked) rows checked on both replicas")
    }
}
