import ClickHouseCluster
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LogStore
import Synchronization

/// `fleet.*`: shipping a store to ClickHouse (``LogShipper``), against a ClickHouse server this
/// group starts on loopback; skipped, saying so, where ClickHouse is not installed.
///
/// - `fleet.clickhouse_rows_per_s`: a store of `rows` messages shipped from the start (the
///   backfill) until ClickHouse acknowledged the last, beside `clickhouse-client` inserting the
///   same rows (read back from ClickHouse as JSONEachRow into a file) into a table of the same
///   schema over its native protocol; alternated three times, medians.
/// - `fleet.cpu_us_per_row`: this process's CPU time while the shipper ships (nothing else runs
///   in it then) per row, beside the CPU time per message the node spent logging the same rows.
/// - `fleet.lag_ms_p99`: a node logging 10k messages a second, each text its send time; the
///   shipper runs beside it; a poller asks ClickHouse every 20 ms for the rows that arrived and
///   takes each one's lag at the answer. Baseline: the node's save interval.
/// - `fleet.otlp_requests_per_s`: the store shipped as OTLP/HTTP JSON, 1,000 rows a request, to
///   the loopback receiver of the tests (which parses every body with `opentelemetry-proto`),
///   beside the same number of requests of the same bodies posted by a plain loop.
struct FleetBenchmark {
    let rows: Int
    let quick: Bool
    let directory: URL

    func run() async throws -> [Figure] {
        guard ClickHouseCluster.isInstalled(replicas: 1) else {
            print("fleet: skipped, clickhouse-server and clickhouse-client are not installed (apt-get install clickhouse-server clickhouse-client)")
            return []
        }
        let cluster = try await ClickHouseCluster.start(replicas: 1, directory: directory.appendingPathComponent("clickhouse"))
        defer { cluster.stop() }
        let url = directory.appendingPathComponent("fleet.logstore")
        let logging = try await logStore(at: url)
        var figures = try await throughput(cluster, store: url, loggingCPU: logging)
        figures.append(try await lag(cluster))
        if let otlp = try await otlpRequests() { figures.append(otlp) }
        return figures
    }

    // MARK: - the store

    /// Fills the store with `rows` messages as the ingest figure does; the CPU seconds per message.
    private func logStore(at url: URL) async throws -> Double {
        let store = try await LogStore(storeURL: url, options: [.create], configuration: IngestBenchmark.configuration)
        let cpu = Measure.processCPUSeconds()
        _ = try await IngestBenchmark.ingest(rows: rows, into: store)
        let perMessage = (Measure.processCPUSeconds() - cpu) / Double(rows)
        try await store.close()
        return perMessage
    }

    // MARK: - throughput

    private func throughput(_ cluster: ClickHouseCluster, store url: URL, loggingCPU: Double) async throws -> [Figure] {
        var shipped: [Double] = []
        var cpu: [Double] = []
        var inserted: [Double] = []
        for round in 1...3 {
            let database = "ship\(round)"
            _ = try await cluster.query("CREATE DATABASE IF NOT EXISTS \(database)")
            var configuration = LogShipper.Configuration(
                destination: .clickHouse(ClickHouseDestination(urls: [cluster.servers[0].httpURL], database: database)),
                author: "bench-\(round)", node: "bench")
            configuration.requestTimeout = .seconds(120)
            let shipper = try await LogShipper(storeURL: url, configuration: configuration)
            let startCPU = Measure.processCPUSeconds()
            let start = Measure.now()
            let running = Task { try await shipper.run() }
            guard try await shipper.waitUntilCaughtUp(timeout: .seconds(600)) else { throw BenchError.failed("the shipper did not catch up") }
            let seconds = Measure.seconds(since: start)
            let cpuSeconds = Measure.processCPUSeconds() - startCPU
            shipper.stop()
            try await running.value
            try await shipper.close()
            let count = try await cluster.query("SELECT count() FROM \(database).logstore_messages FORMAT TSV")
            guard Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) == rows else {
                throw BenchError.failed("ClickHouse holds \(count) rows of \(rows)")
            }
            shipped.append(Double(rows) / seconds)
            cpu.append(cpuSeconds / Double(rows) * 1e6)

            let baseline = try await clientInsert(cluster, from: database, round: round)
            inserted.append(Double(rows) / baseline)
            print(String(format: "fleet: round %d: shipper %.0f rows/s (%.2f µs CPU a row), clickhouse-client %.0f rows/s",
                round, shipped.last ?? 0, cpu.last ?? 0, inserted.last ?? 0))
        }
        return [
            Figure(
                name: "fleet.clickhouse_rows_per_s", value: Measure.median(shipped), baseline: Measure.median(inserted), unit: "rows/s",
                baselineDescription: "`clickhouse-client` inserting the same \(rows) rows from a JSONEachRow file (native protocol), "
                    + "alternated 3 times; medians", target: "≥ 1.0 (aim 2.0)"),
            Figure(
                name: "fleet.cpu_us_per_row", value: Measure.median(cpu), baseline: loggingCPU * 1e6, unit: "µs",
                baselineDescription: "the node's own CPU per message logging the same rows", target: "≤ 1.0"),
        ]
    }

    /// The seconds `clickhouse-client` takes to insert the rows of `database` again, from a file.
    private func clientInsert(_ cluster: ClickHouseCluster, from database: String, round: Int) async throws -> Double {
        let file = directory.appendingPathComponent("fleet-\(round).ndjson")
        let target = "client\(round)"
        _ = try await cluster.query("CREATE DATABASE IF NOT EXISTS \(target)")
        _ = try await cluster.query("CREATE TABLE \(target).logstore_messages AS \(database).logstore_messages")
        try Self.runClient(cluster, ["--query", "SELECT * FROM \(database).logstore_messages FORMAT JSONEachRow"], output: file)
        sync()
        let start = Measure.now()
        try Self.runClient(cluster, ["--query", "INSERT INTO \(target).logstore_messages FORMAT JSONEachRow"], input: file)
        let seconds = Measure.seconds(since: start)
        let count = try await cluster.query("SELECT count() FROM \(target).logstore_messages FORMAT TSV")
        guard Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) == rows else {
            throw BenchError.failed("clickhouse-client inserted \(count) rows of \(rows)")
        }
        try? FileManager.default.removeItem(at: file)
        return seconds
    }

    private static func runClient(_ cluster: ClickHouseCluster, _ arguments: [String], input: URL? = nil, output: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/clickhouse-client")
        process.arguments = ["--host", "127.0.0.1", "--port", "\(cluster.servers[0].tcpPort)"] + arguments
        if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
        if let output {
            guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
                throw BenchError.failed("cannot create \(output.path)")
            }
            process.standardOutput = try FileHandle(forWritingTo: output)
        }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.failed("clickhouse-client \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }

    // MARK: - lag

    private func lag(_ cluster: ClickHouseCluster) async throws -> Figure {
        let url = directory.appendingPathComponent("fleet-lag.logstore")
        let perSecond = 10_000.0
        let count = Int(perSecond * (quick ? 3 : 8))
        let database = "lag"
        _ = try await cluster.query("CREATE DATABASE IF NOT EXISTS \(database)")
        let node = try await LogStore(storeURL: url, options: [.create])
        let shipper = try await LogShipper(storeURL: url, configuration: LogShipper.Configuration(
            destination: .clickHouse(ClickHouseDestination(urls: [cluster.servers[0].httpURL], database: database)), node: "lag"))
        let shipping = Task { try await shipper.run() }
        // The tables exist once the first (empty) backfill or batch went; wait for them.
        node.storeMessage(label: "lag", level: .info, message: "\(Self.realtimeNanoseconds())")
        try await node.flush()
        guard try await shipper.waitUntilCaughtUp(timeout: .seconds(60)) else { throw BenchError.failed("the shipper did not start") }

        let writer = Task.detached {
            let start = ContinuousClock.now
            for index in 0..<count {
                let due = start + .seconds(Double(index) / perSecond)
                if due > .now { try? await Task.sleep(until: due, clock: .continuous) }
                node.storeMessage(label: "lag", level: .info, message: "\(Self.realtimeNanoseconds())")
            }
        }
        var lags: [Double] = []
        var lastID: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(Double(count) / perSecond + 60)
        while lags.count < count {
            guard ContinuousClock.now < deadline else { throw BenchError.failed("\(lags.count) of \(count) rows arrived") }
            let answer = try await cluster.query(
                "SELECT id, text FROM \(database).logstore_messages WHERE node = 'lag' AND id > \(lastID) ORDER BY id FORMAT TSV")
            let now = Self.realtimeNanoseconds()
            for line in answer.split(separator: "\n") {
                let fields = line.split(separator: "\t")
                guard fields.count == 2, let id = Int64(fields[0]), let sent = UInt64(fields[1]) else { continue }
                lastID = max(lastID, id)
                if id > 1 { lags.append(Double(now &- sent) / 1e6) }
            }
            if lags.count < count { try await Task.sleep(for: .milliseconds(20)) }
        }
        await writer.value
        shipper.stop()
        try await shipping.value
        try await shipper.close()
        try await node.close()
        lags.sort()
        let interval = LogStore.Configuration().saveInterval.components
        let saveInterval = Double(interval.seconds) * 1_000 + Double(interval.attoseconds) / 1e15
        let p50 = lags[lags.count / 2]
        let p99 = lags[min(lags.count - 1, lags.count * 99 / 100)]
        print(String(format: "fleet: lag at %.0f msg/s: p50 %.0f ms, p99 %.0f ms over %d rows", perSecond, p50, p99, lags.count))
        return Figure(
            name: "fleet.lag_ms_p99", value: p99, baseline: saveInterval, unit: "ms",
            baselineDescription: "the node's `saveInterval`; a node logging 10k msg/s, ClickHouse polled every 20 ms",
            target: "≤ 2 s; aim ≤ saveInterval + 200 ms")
    }

    static func realtimeNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    // MARK: - OTLP

    /// The tests' receiver, beside this file in the checkout the benchmark was built from.
    static let receiverScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/LogStoreTests/Support/otlp_receiver.py").standardized

    private func otlpRequests() async throws -> Figure? {
        guard FileManager.default.fileExists(atPath: Self.receiverScript.path) else {
            print("fleet: fleet.otlp_requests_per_s skipped, \(Self.receiverScript.path) is not there")
            return nil
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import opentelemetry.proto.collector.logs.v1.logs_service_pb2"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            print("fleet: fleet.otlp_requests_per_s skipped, opentelemetry-proto is not installed (python3 -m pip install opentelemetry-proto)")
            return nil
        }
        let rows = quick ? 20_000 : 50_000
        let rowsPerRequest = 500
        let url = directory.appendingPathComponent("fleet-otlp.logstore")
        let store = try await LogStore(storeURL: url, options: [.create], configuration: IngestBenchmark.configuration)
        _ = try await IngestBenchmark.ingest(rows: rows, into: store)
        try await store.close()

        var shipped: [Double] = []
        var posted: [Double] = []
        for round in 1...3 {
            let bodies = directory.appendingPathComponent("otlp-bodies-\(round)")
            try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
            let receiver = try OTLPBenchReceiver(script: Self.receiverScript, directory: directory, round: round, bodies: bodies)
            defer { receiver.stop() }
            let endpoint = try await receiver.endpoint()
            var configuration = LogShipper.Configuration(
                destination: .otlp(OTLPDestination(url: endpoint, serviceName: "bench")), author: "otlp-\(round)", node: "bench")
            configuration.maxRowsPerRequest = rowsPerRequest
            let shipper = try await LogShipper(storeURL: url, configuration: configuration)
            let start = Measure.now()
            let running = Task { try await shipper.run() }
            guard try await shipper.waitUntilCaughtUp(timeout: .seconds(600)) else { throw BenchError.failed("the OTLP shipper did not catch up") }
            let seconds = Measure.seconds(since: start)
            let requests = try await shipper.status().sentRequests
            shipper.stop()
            try await running.value
            try await shipper.close()
            shipped.append(Double(requests) / seconds)

            // The same bodies, posted one after another by a plain loop.
            let files = try FileManager.default.contentsOfDirectory(at: bodies, includingPropertiesForKeys: nil)
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
            let payloads = try files.map { try Data(contentsOf: $0) }
            let session = URLSession(configuration: .ephemeral)
            let loopStart = Measure.now()
            for payload in payloads {
                var request = URLRequest(url: endpoint)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                if payload.starts(with: [0x1f, 0x8b]) { request.setValue("gzip", forHTTPHeaderField: "Content-Encoding") }
                let (_, response) = try await session.upload(for: request, from: payload)
                guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError.failed("the receiver refused a body again") }
            }
            posted.append(Double(payloads.count) / Measure.seconds(since: loopStart))
            session.invalidateAndCancel()
            print(String(format: "fleet: OTLP round %d: shipper %.1f requests/s (%d requests of %d rows), plain loop %.1f requests/s",
                round, shipped.last ?? 0, requests, rowsPerRequest, posted.last ?? 0))
        }
        return Figure(
            name: "fleet.otlp_requests_per_s", value: Measure.median(shipped), baseline: Measure.median(posted), unit: "req/s",
            baselineDescription: "the same request bodies (\(rowsPerRequest) rows each, gzip) posted one after another by a plain "
                + "`URLSession` loop to the same loopback receiver (which parses each with opentelemetry-proto); 3 rounds, medians",
            target: "≥ 0.9")
    }
}

/// The tests' OTLP receiver (`otlp_receiver.py`) as a child of the benchmark, saving what it
/// accepted.
final class OTLPBenchReceiver {
    private let process = Process()
    private let portFile: URL

    init(script: URL, directory: URL, round: Int, bodies: URL) throws {
        portFile = directory.appendingPathComponent("otlp-\(round).port")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--port-file", portFile.path,
                             "--out", directory.appendingPathComponent("otlp-\(round).out").path, "--save-bodies", bodies.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Its `/v1/logs` URL once it listens (within 30 s).
    func endpoint() async throws -> URL {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text),
                let url = URL(string: "http://127.0.0.1:\(port)/v1/logs") {
                return url
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchError.failed("the OTLP receiver did not start")
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
