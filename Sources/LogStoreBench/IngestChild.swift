import Foundation
import LogStore

/// The `ingest.messages_per_s` workload in a process of its own (this executable re-run with
/// ``flag``, then `STORE ROWS`), so `ingest.peak_rss_mb` is what logging `ROWS` messages costs a
/// process that does nothing else, read from the kernel like ``ArchiveExportChild``'s, and the
/// rate is measured in a fresh process as the C baseline's is.
enum IngestChild {
    static let flag = "--ingest-child"

    struct Run {
        /// Seconds from the first call until `flush()` returned.
        var seconds: Double
        /// The timed calls' median and 99th percentile, in nanoseconds.
        var callP50: Double
        var callP99: Double
        /// The child's peak resident set size over its whole life (start, open, logging, close), in MB.
        var peakMB: Double
        /// What the child held resident with the store open, before the first call, in MB.
        var residentBeforeMB: Double
    }

    /// Spawns the child, waits for it and returns what it measured.
    static func run(store: URL, rows: Int) throws -> Run {
        let outcome = try BenchChild.run("ingest child", arguments: [flag, store.path, String(rows)])
        let numbers = outcome.fields.compactMap { Double($0) }
        guard numbers.count == 4, outcome.fields.count == 4 else {
            throw BenchError.failed("ingest child printed \(outcome.fields.joined(separator: " "))")
        }
        return Run(
            seconds: numbers[0], callP50: numbers[1], callP99: numbers[2],
            peakMB: outcome.peakMB, residentBeforeMB: numbers[3] / 1024)
    }

    /// The child's side when `arguments` start with ``flag``: prints
    /// `SECONDS CALL_P50_NS CALL_P99_NS RESIDENT_KB_BEFORE PEAK_KB`.
    static func runIfAsked(_ arguments: [String]) async -> Int32? {
        guard arguments.first == flag else { return nil }
        guard arguments.count == 3, let rows = Int(arguments[2]) else { return 64 }
        do {
            let store = try await LogStore(
                storeURL: URL(fileURLWithPath: arguments[1]), options: [.create],
                configuration: IngestBenchmark.configuration)
            let resident = BenchChild.residentKilobytes()
            let (seconds, samples) = try await IngestBenchmark.ingest(rows: rows, into: store)
            let info = try await store.info()
            try await store.close()
            guard info.messageCount == rows, info.droppedEventCount == 0 else {
                throw BenchError.failed("stored \(info.messageCount) of \(rows), dropped \(info.droppedEventCount)")
            }
            let sorted = samples.sorted()
            BenchChild.report([
                String(seconds), String(Measure.percentile(sorted, 0.50)), String(Measure.percentile(sorted, 0.99)),
                String(resident),
            ])
            return 0
        } catch {
            FileHandle.standardError.write(Data("ingest child: \(error)\n".utf8))
            return 1
        }
    }
}
