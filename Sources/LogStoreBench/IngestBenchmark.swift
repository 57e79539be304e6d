import CBenchBaseline
import Foundation
import LogStore

/// `ingest.*`, `query.*` and `open.ms`: the foundation's figures, each beside the naive C
/// baseline run on the same rows in the same process.
struct IngestBenchmark {
    let rows: Int
    let directory: URL
    static let producers = 4
    /// Every n-th call is timed, so timing does not slow the run it measures.
    static let sampleEvery = 8

    func run() async throws -> [Figure] {
        var figures: [Figure] = []

        // The store, through the public API from 4 concurrent tasks, until flush returns, in a
        // process of its own (so its peak memory is its own). Each insert phase starts with the
        // page cache's dirty data written back, so neither pays for the other's writeback.
        let storeURL = directory.appendingPathComponent("bench.logstore")
        let configuration = Self.configuration
        sync()
        let child = try IngestChild.run(store: storeURL, rows: rows)
        let ingestSeconds = child.seconds
        // Baseline: plain C, prepared statement, 10k rows per transaction, naive schema, in a
        // child process too: SQLite's configuration is process-wide, and the store turns memory
        // statistics off at its first open, which the naive code would not have done.
        let naivePath = directory.appendingPathComponent("naive.sqlite").path
        sync()
        let baselineSeconds = try CBaselineProcess.insert(rows: rows, path: naivePath)
        let baselineRate = Double(rows) / baselineSeconds
        let rate = Double(rows) / ingestSeconds
        figures.append(Figure(
            name: "ingest.messages_per_s", value: rate, baseline: baselineRate, unit: "msg/s",
            baselineDescription: "C, prepared INSERT, 10k rows/txn, naive schema (4 indexes), WAL+NORMAL",
            target: "≥ 1.0× (aim 1.5×)"))
        figures.append(Figure(
            name: "ingest.call_ns_p50", value: child.callP50, baseline: 300, unit: "ns",
            baselineDescription: "the issue's budget (300 ns)", target: "≤ 1.0"))
        figures.append(Figure(
            name: "ingest.call_ns_p99", value: child.callP99, baseline: 3000, unit: "ns",
            baselineDescription: "the issue's budget (3 µs)", target: "≤ 1.0"))
        figures.append(Figure(
            name: "ingest.peak_rss_mb", value: child.peakMB, baseline: 55, unit: "MB",
            baselineDescription: "issue 33's budget (55 MB; aim 50), the child's whole life; "
                + String(format: "%.1f MB resident with the store open, before logging", child.residentBeforeMB),
            target: "≤ 1.0"))

        // Queries on the store and on the naive schema, same rows.
        let latest = MessageQuery(levels: .warning ... .critical, labels: ["payments"], limit: 100)
        let errors = MessageQuery(levels: .error ... .critical)
        let reopened = try await LogStore(storeURL: storeURL, options: [], configuration: configuration)
        _ = try await reopened.messages(latest)  // warm the reader and the page cache, as the C side does
        let latestMs = try await Measure.medianMilliseconds(repeats: 21) {
            let page = try await reopened.messages(latest)
            guard page.messages.count == 100 else { throw BenchError.failed("latest100 returned \(page.messages.count)") }
        }
        var expectedErrors = 0
        let countMs = try await Measure.medianMilliseconds(repeats: 11) {
            expectedErrors = try await reopened.count(errors)
        }
        try await reopened.close()

        var baselineLatestMs = 0.0
        var baselineRows: Int64 = 0
        try check(lsb_query_latest(naivePath, "payments", 4, 100, 21, &baselineLatestMs, &baselineRows, nil, 0), "C latest")
        var baselineCountMs = 0.0
        var baselineCount: Int64 = 0
        try check(lsb_query_count(naivePath, 5, 11, &baselineCountMs, &baselineCount, nil, 0), "C count")
        guard baselineCount == expectedErrors else {
            throw BenchError.failed("error counts differ: store \(expectedErrors), baseline \(baselineCount)")
        }
        figures.append(Figure(
            name: "query.latest100_ms", value: latestMs, baseline: baselineLatestMs, unit: "ms",
            baselineDescription: "same query in C on the naive schema (ORDER BY created_at)", target: "≤ 1.0"))
        figures.append(Figure(
            name: "query.count_errors_ms", value: countMs, baseline: baselineCountMs, unit: "ms",
            baselineDescription: "count(*) WHERE level >= 5 in C on the naive schema", target: "≤ 1.0"))

        // Opening the big store (each open also writes its session row).
        let openMs = try await Measure.medianMilliseconds(repeats: 7) {
            let store = try await LogStore(storeURL: storeURL, options: [], configuration: configuration)
            try await store.close()
        }
        let baselineOpenMs = try Self.openBaseline(path: naivePath)
        figures.append(Figure(
            name: "open.ms", value: openMs, baseline: baselineOpenMs, unit: "ms",
            baselineDescription: "sqlite3_open_v2 + schema read of the naive db in C", target: "≤ 50 ms"))
        return figures
    }

    /// The store's configuration for `ingest.messages_per_s`: waiting for space, so nothing is
    /// dropped, and search off: this figure keeps its meaning from before the index (the
    /// `search` group measures ingest with it on), and the queries run on a store the writer
    /// does not index under them.
    static var configuration: LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        configuration.isSearchIndexEnabled = false
        return configuration
    }

    /// The `ingest.messages_per_s` workload: `rows` messages from ``producers`` concurrent tasks
    /// until `flush()` returns. The seconds that took, and the timed calls' nanoseconds.
    static func ingest(rows: Int, into store: LogStore) async throws -> (seconds: Double, samples: [UInt32]) {
        let start = Measure.now()
        let samples = await withTaskGroup(of: [UInt32].self) { group in
            for producer in 0..<producers {
                group.addTask { produce(into: store, producer: producer, rows: rows) }
            }
            var all: [UInt32] = []
            for await samples in group { all += samples }
            return all
        }
        try await store.flush()
        return (Measure.seconds(since: start), samples)
    }

    /// One producer: its share of the rows, every `sampleEvery`-th call timed.
    static func produce(into store: LogStore, producer: Int, rows: Int) -> [UInt32] {
        var samples: [UInt32] = []
        samples.reserveCapacity(rows / producers / sampleEvery + 1)
        var i = producer
        var counter = 0
        while i < rows {
            let row = BenchRow(UInt64(i))
            let createdAt = Date(timeIntervalSince1970: row.createdAtSeconds)
            if counter % sampleEvery == 0 {
                let start = Measure.now()
                store.storeMessage(
                    createdAt: createdAt, label: row.label, level: row.level, message: row.text,
                    metadata: row.metadata, file: "Handler.swift", function: "handle(_:)", line: 42)
                samples.append(UInt32(clamping: Measure.now() - start))
            } else {
                store.storeMessage(
                    createdAt: createdAt, label: row.label, level: row.level, message: row.text,
                    metadata: row.metadata, file: "Handler.swift", function: "handle(_:)", line: 42)
            }
            counter += 1
            i += producers
        }
        return samples
    }

    private static func openBaseline(path: String) throws -> Double {
        var milliseconds = 0.0
        try check(lsb_open_ms(path, 7, &milliseconds, nil, 0), "C open")
        return milliseconds
    }
}

enum BenchError: Error, CustomStringConvertible {
    case failed(String)

    var description: String {
        switch self {
        case .failed(let reason): "benchmark failed: \(reason)"
        }
    }
}

func check(_ code: Int32, _ what: String) throws {
    guard code == 0 else { throw BenchError.failed("\(what): SQLite code \(code)") }
}
