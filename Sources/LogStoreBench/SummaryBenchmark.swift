import CBenchBaseline
import Foundation
import LogStore

/// `query.summary_ms`: ``LogStore/summary(_:buckets:)`` of the whole store (60 buckets) beside
/// the naive summary in C on the naive schema with the same rows: the time range from its
/// `created_at` index, then one `GROUP BY level, label, bucket` over every row. Also prints
/// (not a figure) the summary of the newest tenth of the store's time span: with the bench
/// rows 1 ms apart, "the last hour" would be the whole store.
struct SummaryBenchmark {
    let rows: Int
    let directory: URL
    static let buckets = 60
    static let repeats = 7

    func run() async throws -> [Figure] {
        let storeURL = directory.appendingPathComponent("summary.logstore")
        let store = try await BenchStore.open(at: storeURL)
        let rows = rows
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<IngestBenchmark.producers {
                group.addTask {
                    for row in stride(from: producer, to: rows, by: IngestBenchmark.producers) {
                        SweepBenchmark.log(row: row, into: store)
                    }
                }
            }
        }
        try await store.flush()
        try await store.close()
        let naivePath = directory.appendingPathComponent("summary-naive.sqlite").path
        _ = try CBaselineProcess.insert(rows: rows, path: naivePath)

        let reopened = try await LogStore(storeURL: storeURL, options: [.readonly])
        let whole = MessageQuery()
        var total = 0
        _ = try await reopened.summary(whole, buckets: Self.buckets)  // warm the reader and the page cache
        let wholeMs = try await Measure.medianMilliseconds(repeats: Self.repeats) {
            total = try await reopened.summary(whole, buckets: Self.buckets).total
        }
        let newest = BenchRow(UInt64(rows - 1)).createdAtSeconds
        let span = newest - BenchRow(0).createdAtSeconds
        let recent = MessageQuery(since: Date(timeIntervalSince1970: newest - span / 10))
        var recentTotal = 0
        let recentMs = try await Measure.medianMilliseconds(repeats: Self.repeats) {
            recentTotal = try await reopened.summary(recent, buckets: Self.buckets).total
        }
        try await reopened.close()
        guard total == rows else { throw BenchError.failed("summary counted \(total) of \(rows)") }

        var baselineMs = 0.0
        var baselineTotal: Int64 = 0
        try check(lsb_query_summary(naivePath, Int32(Self.buckets), Int32(Self.repeats), &baselineMs, &baselineTotal, nil, 0),
                  "C summary")
        guard baselineTotal == rows else { throw BenchError.failed("C summary counted \(baselineTotal) of \(rows)") }
        print(
            "summary: whole store \(String(format: "%.1f", wholeMs)) ms; newest tenth of the span "
                + "(\(recentTotal) messages) \(String(format: "%.1f", recentMs)) ms; naive GROUP BY "
                + "\(String(format: "%.1f", baselineMs)) ms")
        try? FileManager.default.removeItem(at: storeURL)
        try? FileManager.default.removeItem(atPath: naivePath)
        return [Figure(
            name: "query.summary_ms", value: wholeMs, baseline: baselineMs, unit: "ms",
            baselineDescription: "min/max(created_at) + GROUP BY level, label, bucket in C on the naive schema",
            target: "≤ 1.0")]
    }
}
