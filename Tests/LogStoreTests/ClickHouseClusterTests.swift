@testable import ClickHouseCluster
import Foundation
@testable import LogStore
import Testing

/// A real ClickHouse cluster (Debian's clickhouse-server 18.16 and zookeeper): two replicas of
/// one shard replicate, survive a kill and a restart, and answer the HTTP interface the way
/// LogShipper relies on.
@Suite(
    "ClickHouse cluster",
    .enabled(
        if: ClickHouseCluster.isInstalled(replicas: 2),
        "skipped: needs clickhouse-server and zookeeper (apt-get install clickhouse-server zookeeper)"))
struct ClickHouseClusterTests {
    @Test func replicasReplicateAndAKilledOneCatchesUpAfterItsRestart() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 2)
            defer { cluster.stop() }
            #expect(cluster.clusterName == "logstore")
            #expect(cluster.servers.map(\.name) == ["r0", "r1"])
            #expect(Set(cluster.servers.map(\.directory)).count == 2)
            #expect(try await cluster.query("SELECT substitution FROM system.macros ORDER BY macro", server: 1) == "r1\n01\n")
            #expect(Set(cluster.residentBytes().keys) == ["zookeeper", "r0", "r1"])
            try await Self.createTables(in: cluster)

            _ = try await cluster.query("INSERT INTO db.t_local VALUES (1, 'a', 1), (2, 'b', 1)", server: 0)
            try await Self.expectEventually(cluster, "SELECT count() FROM db.t_local", server: 1, is: "2\n")

            cluster.kill(server: 1)
            #expect(Set(cluster.residentBytes().keys) == ["zookeeper", "r0"])
            let killed = await #expect(throws: ClickHouseClusterError.self) { try await cluster.query("SELECT 1", server: 1) }
            #expect(killed?.code == .unreachable)
            _ = try await cluster.query("INSERT INTO db.t_local VALUES (3, 'c', 1)", server: 0)
            // A synchronous insert through the Distributed table picks the replica that answers.
            _ = try await cluster.post(
                Data("4\td\t1\n".utf8), parameters: ["query": "INSERT INTO db.t FORMAT TabSeparated", "insert_distributed_sync": "1"],
                server: 0)
            #expect(try await cluster.query("SELECT count() FROM db.t", server: 0) == "4\n")

            try await cluster.restart(server: 1)
            try await Self.expectEventually(cluster, "SELECT count() FROM db.t_local", server: 1, is: "4\n")
            _ = try await cluster.query("INSERT INTO db.t_local VALUES (5, 'e', 1)", server: 1)
            try await Self.expectEventually(cluster, "SELECT count() FROM db.t_local", server: 0, is: "5\n")

            let directories = [cluster.directory] + cluster.servers.map(\.directory)
            cluster.stop()
            for directory in directories { #expect(!FileManager.default.fileExists(atPath: directory.path)) }
            #expect(cluster.residentBytes().isEmpty)
            let afterStop = await #expect(throws: ClickHouseClusterError.self) { try await cluster.query("SELECT 1") }
            #expect(afterStop?.code == .stopped)
            await #expect(throws: ClickHouseClusterError.self) { try await cluster.restart(server: 1) }
        }
    }

    @Test func theHTTPInterfaceTakesRowBinaryGzipAndSynchronousDistributedInserts() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 2)
            defer { cluster.stop() }
            try await Self.createTables(in: cluster)
            let insert = ["query": "INSERT INTO db.t FORMAT RowBinary", "insert_distributed_sync": "1"]

            _ = try await cluster.post(Self.rowBinary([(1, "a", 1), (2, "b", 1)]), parameters: insert, server: 0)
            let compressed = try ZlibCompressor(level: 1, gzip: true).compress(Self.rowBinary([(1, "a2", 2), (3, "c", 1)]))
            _ = try await cluster.post(Data(compressed), parameters: insert, headers: ["Content-Encoding": "gzip"], server: 0)

            // Synchronous: the rows are in a replica when the insert returns; FINAL keeps the newest
            // version of key 1 even before a merge has replaced the older one.
            try await Self.expectEventually(cluster, "SELECT count() FROM db.t FINAL", server: 1, is: "3\n")
            #expect(try await cluster.query("SELECT k, s, v FROM db.t FINAL ORDER BY k", server: 1) == "1\ta2\t2\n2\tb\t1\n3\tc\t1\n")

            let unknownTable = await #expect(throws: ClickHouseClusterError.self) {
                try await cluster.query("SELECT count() FROM db.nowhere")
            }
            #expect(unknownTable?.code == .queryFailed)
            #expect(unknownTable?.status == 404)
            #expect(unknownTable?.body?.contains("Code: 60") == true)
            #expect(unknownTable?.description.contains("db.nowhere doesn't exist") == true)
            let syntax = await #expect(throws: ClickHouseClusterError.self) { try await cluster.query("SELEC 1") }
            #expect(syntax?.status == 400)
            let unknownSetting = await #expect(throws: ClickHouseClusterError.self) {
                try await cluster.post(Data("SELECT 1".utf8), parameters: ["no_such_setting": "1"])
            }
            #expect(unknownSetting?.status == 404)
            let brokenGzip = await #expect(throws: ClickHouseClusterError.self) {
                try await cluster.post(Self.rowBinary([(9, "x", 1)]), parameters: insert, headers: ["Content-Encoding": "gzip"])
            }
            #expect(brokenGzip?.status == 500)
        }
    }

    /// A database `db` with a replicated table `t_local` on every server and a Distributed
    /// table `t` over it, made with `ON CLUSTER` from server 0.
    private static func createTables(in cluster: ClickHouseCluster) async throws {
        _ = try await cluster.query("CREATE DATABASE IF NOT EXISTS db ON CLUSTER logstore")
        _ = try await cluster.query("""
            CREATE TABLE db.t_local ON CLUSTER logstore (k UInt64, s String, v UInt64)
            ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db.t', '{replica}', v) ORDER BY k
            """)
        _ = try await cluster.query(
            "CREATE TABLE db.t ON CLUSTER logstore AS db.t_local ENGINE = Distributed(logstore, db, t_local, rand())")
    }

    /// Checks that `sql` on `server` answers `expected` within 10 s (replication is asynchronous).
    private static func expectEventually(
        _ cluster: ClickHouseCluster, _ sql: String, server: Int, is expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var last = ""
        let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(10))
        while ContinuousClock.now < deadline {
            last = try await cluster.query(sql, server: server)
            if last == expected { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("\(sql) on r\(server) answered \(last.debugDescription), not \(expected.debugDescription)",
                     sourceLocation: sourceLocation)
    }

    /// Rows of `(k UInt64, s String, v UInt64)` in ClickHouse's RowBinary format: integers
    /// little-endian, a string as its length (LEB128) and its bytes.
    private static func rowBinary(_ rows: [(UInt64, String, UInt64)]) -> Data {
        var data = Data()
        func append(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        for (key, text, version) in rows {
            append(key)
            var length = text.utf8.count
            repeat {
                data.append(UInt8(length & 0x7F) | (length >= 0x80 ? 0x80 : 0))
                length >>= 7
            } while length > 0
            data.append(contentsOf: Array(text.utf8))
            append(version)
        }
        return data
    }
}
