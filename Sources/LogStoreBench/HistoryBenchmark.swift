import Foundation
import LogStore
import Synchronization

/// `history.*`: what the change history (``LogStore/Configuration/history``) costs the writer,
/// and how soon another process's observer hears of a logged message.
///
/// - `history.ingest_ratio`: the `ingest.messages_per_s` workload with history on, beside the
///   same with history off, alternated (off, on, off, on, …) in the same run and each side's
///   median taken, so the machine's drift falls on both alike.
/// - `history.notify_ms_p50` / `_p99`: a child process (this executable, re-run with
///   ``writerFlag``) logs at a steady rate as author "writer", each text its send time
///   (`CLOCK_REALTIME`, shared by both processes); this process has the store open read-write
///   as author "reader" with an observer of inserted messages, which reads the change's texts
///   in one query and records how long each took to reach it. Baseline: the writer's
///   `saveInterval` (300 ms, the default), as for `tail.latency_ms_p99`.
struct HistoryBenchmark {
    let rows: Int
    let quick: Bool
    let directory: URL
    static let writerFlag = "--history-writer"
    static let saveInterval: Duration = LogStore.Configuration().saveInterval
    static let perSecond = 500.0

    func run() async throws -> [Figure] {
        try await [ingestRatio()] + notifyLatency()
    }

    // MARK: - ingest with and without history

    private func ingestRatio() async throws -> Figure {
        // A phase of 1M messages takes 5–20 s here: three pairs of those, or five of the quick
        // run's 200k.
        let pairs = quick ? 5 : 3
        // A first phase, uncounted: the process's first store pays for cold code and a cold
        // page cache, which would otherwise fall on the first "off" alone.
        _ = try await Self.ingestRate(rows: rows / 5, history: true, at: url(-1, "warm-up"))
        var without: [Double] = []
        var with: [Double] = []
        for pair in 0..<pairs {
            without.append(try await Self.ingestRate(rows: rows, history: false, at: url(pair, "off")))
            with.append(try await Self.ingestRate(rows: rows, history: true, at: url(pair, "on")))
            print(String(format: "history: ingest pair %d: off %.0f msg/s, on %.0f msg/s", pair + 1, without[pair], with[pair]))
        }
        // Neighbouring phases share the machine's load best: the median of the pairs' own
        // ratios says how much of a spread between the two medians is noise.
        let pairRatios = zip(with, without).map { $0 / $1 }
        print(String(format: "history: ingest ratio per pair: median %.2f, range %.2f–%.2f",
            Measure.median(pairRatios), pairRatios.min() ?? 0, pairRatios.max() ?? 0))
        return Figure(
            name: "history.ingest_ratio", value: Measure.median(with), baseline: Measure.median(without), unit: "msg/s",
            baselineDescription: "`ingest.messages_per_s`'s workload with history off, alternated with it on "
                + "(`HistoryConfiguration(currentAuthor: \"bench\")`) \(pairs) times in the same run; medians",
            target: "≥ 0.9 (aim 0.97)")
    }

    private func url(_ pair: Int, _ side: String) -> URL {
        directory.appendingPathComponent("history-ingest-\(pair)-\(side).logstore")
    }

    /// One phase: a new store, `rows` messages through ``IngestBenchmark/ingest(rows:into:)``,
    /// checked (and, with history on, checked to be in the history) and deleted.
    private static func ingestRate(rows: Int, history: Bool, at url: URL) async throws -> Double {
        var configuration = IngestBenchmark.configuration
        if history { configuration.history = HistoryConfiguration(currentAuthor: "bench") }
        // As in the ingest figure: no phase pays for the last one's writeback.
        sync()
        let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
        let (seconds, _) = try await IngestBenchmark.ingest(rows: rows, into: store)
        let info = try await store.info()
        guard info.messageCount == rows, info.droppedEventCount == 0 else {
            throw BenchError.failed("stored \(info.messageCount) of \(rows), dropped \(info.droppedEventCount)")
        }
        if history {
            let recorded = try await store.read { db in
                try db.scalar(
                    "SELECT coalesce(sum(row_count), 0) FROM history WHERE entity = ? AND operation = ?",
                    [.integer(Int64(HistoryEntity.message.rawValue)), .integer(Int64(HistoryOperation.insert.rawValue))]
                )?.integer ?? 0
            }
            guard recorded == rows else { throw BenchError.failed("history holds \(recorded) of \(rows) inserted messages") }
        }
        try await BenchStore.closeAndDelete(store, at: url)
        return Double(rows) / seconds
    }

    // MARK: - from a logging call to another process's observer

    private func notifyLatency() async throws -> [Figure] {
        let count = quick ? 1_000 : 5_000
        let url = directory.appendingPathComponent("history-notify.logstore")
        var configuration = LogStore.Configuration()
        configuration.history = HistoryConfiguration(currentAuthor: "reader")
        let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
        let log = LatencyLog()
        await store.registerObserver(entity: .message, operation: .insert) { transaction in
            let received = TailBenchmark.realtimeNanoseconds()
            for change in transaction.changes {
                await Self.record(change.ids, receivedAt: received, from: store, into: log)
            }
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = [Self.writerFlag, String(count), String(Self.perSecond), url.path]
        try child.run()
        // Bounded: a child that dies early, or messages that never arrive, end the wait. The
        // writer's close commits its last messages, so once it exits they arrive within a merge.
        let deadline = ContinuousClock.now + .seconds(Double(count) / Self.perSecond + 30)
        var exited: ContinuousClock.Instant?
        while log.count < count, ContinuousClock.now < deadline {
            if let exited, ContinuousClock.now - exited > .seconds(5) { break }
            if exited == nil, !child.isRunning { exited = .now }
            try await Task.sleep(for: .milliseconds(20))
        }
        while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if child.isRunning { child.terminate() }
        child.waitUntilExit()
        await store.removeAllObservers()
        try await BenchStore.closeAndDelete(store, at: url)

        let (latencies, reads, failure) = log.results()
        if let failure { throw BenchError.failed("history observer's read: \(failure)") }
        guard latencies.count == count, child.terminationStatus == 0 else {
            throw BenchError.failed(
                "observer heard of \(latencies.count) of \(count) messages; writer exit \(child.terminationStatus)")
        }
        let sorted = latencies.sorted()
        func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }
        print(String(
            format: "history: notify min %.1f ms, p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d observer calls, read median %.2f ms",
            sorted[0], at(0.5), at(0.99), sorted[sorted.count - 1], reads.count, Measure.median(reads)))
        let description = "the writer's `saveInterval` (300 ms); ours: `storeMessage` in a child process (author \"writer\"), "
            + "\(count / 1000)k messages at \(Int(Self.perSecond))/s, to the `registerObserver(entity: .message, operation: .insert)` "
            + "call of author \"reader\" here (send time in the text, CLOCK_REALTIME)"
        return Figure.latencyPercentiles(
            "history.notify_ms", sorted: sorted, saveInterval: Self.saveInterval / .milliseconds(1), description: description)
    }

    /// Reads the texts of one change's messages in one query, so the observer's own reads stay
    /// small beside what they measure, and records each message's latency.
    private static func record(_ ids: IDRanges, receivedAt received: Int64, from store: LogStore, into log: LatencyLog) async {
        guard !ids.isEmpty else { return }
        let sql = "SELECT text FROM messages WHERE " + ids.ranges.map { _ in "id BETWEEN ? AND ?" }.joined(separator: " OR ")
        let arguments = ids.ranges.flatMap { [DatabaseValue.integer($0.lowerBound), .integer($0.upperBound)] }
        let start = Measure.now()
        do {
            let rows = try await store.read { db in try db.rows(sql, arguments) }
            let readMs = Measure.milliseconds(since: start)
            // Texts that are not a send time are not the writer's (none are, but a stray one
            // must not count as a latency).
            let sent = rows.compactMap { $0[0].text.flatMap { Int64($0) } }
            log.append(sent.map { Double(received - $0) / 1e6 }, readMs: readMs)
        } catch {
            log.fail(error)
        }
    }

    /// The child's side, when `arguments` start with ``writerFlag``: logs `COUNT` messages at
    /// `PER_SECOND` as author "writer" with the default `saveInterval`, each text its send time,
    /// and closes the store; `nil` for an ordinary run.
    static func runWriterIfAsked(_ arguments: [String]) async -> Int32? {
        var configuration = LogStore.Configuration()
        configuration.history = HistoryConfiguration(currentAuthor: "writer")
        return await PacedWriterChild.runIfAsked(
            arguments, flag: writerFlag, label: "history", configuration: configuration)
    }
}

/// What the observer measured: its calls run on the merger's task, the benchmark polls from its
/// own.
private final class LatencyLog: Sendable {
    private let state = Mutex<(latencies: [Double], reads: [Double], failure: String?)>(([], [], nil))

    var count: Int { state.withLock { $0.latencies.count } }

    func append(_ latencies: [Double], readMs: Double) {
        state.withLock {
            $0.latencies += latencies
            $0.reads.append(readMs)
        }
    }

    func fail(_ error: any Error) {
        state.withLock { $0.failure = $0.failure ?? String(describing: error) }
    }

    func results() -> (latencies: [Double], reads: [Double], failure: String?) {
        state.withLock { ($0.latencies, $0.reads, $0.failure) }
    }
}
