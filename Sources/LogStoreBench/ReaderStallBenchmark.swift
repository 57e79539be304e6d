import Foundation
import LogStore

/// `reader.*`: what one long read (an export, a long query, a reader in another process) costs
/// everything else while 4 threads log at full speed.
///
/// - `reader.max_ingest_stall_ms`: the longest time without a commit of new messages while the
///   reader holds one snapshot for a few seconds, and after it lets go. While it holds, no
///   checkpoint can copy the frames logged after its snapshot, so the WAL grows by all of them;
///   once it lets go they are copied into the database file, and whoever copies them must not
///   be the writer's commit that every logging thread waits for.
/// - `reader.max_read_ms`: the longest short query (`SELECT max(id)`, a live view's poll) while
///   the long read runs, beside the longest one before it: the store's other reads must not queue
///   behind the long one.
struct ReaderStallBenchmark {
    let quick: Bool
    let directory: URL

    static let producers = 4
    /// The same budget as `sweep.max_ingest_stall_ms`: a save interval.
    static let stallBudgetMilliseconds = SweepBenchmark.stallBudgetMilliseconds
    var warmUpSeconds: Double { quick ? 1 : 2 }
    var holdSeconds: Double { quick ? 3 : 6 }
    /// How long the producers go on after the reader lets go: its backlog is copied then.
    var afterSeconds: Double { quick ? 2 : 3 }

    func run() async throws -> [Figure] {
        let url = directory.appendingPathComponent("reader-stall.logstore")
        let store = try await BenchStore.open(at: url)
        let producers = ProducerThreads.logging(rowsFrom: 0, into: store, count: Self.producers, name: "reader-producer")
        let watch = CommitWatch.start(store)
        let probe = ShortReads.start(store, phase: { producers.phase })
        try await Task.sleep(for: .seconds(warmUpSeconds))
        let sizeWatch = DiskSizeWatch.start(url)
        let diskBefore = DiskSizeWatch.Sample(of: url)
        let holdStart = Measure.now()
        producers.enter(phase: 1)
        let hold = holdSeconds
        let seenByReader = try await store.read { reader in
            _ = try reader.rows("BEGIN")
            let count = try reader.scalar("SELECT count(*) FROM messages")?.integer ?? 0
            Thread.sleep(forTimeInterval: hold)
            return count
        }
        let released = Measure.now()
        producers.enter(phase: 2)
        try await Task.sleep(for: .seconds(afterSeconds))
        let end = Measure.now()
        let calls = CallStats.merged(await producers.stop())
        let reads = try await probe.stop()
        let commits = try await watch.stop()
        let disk = await sizeWatch.stop(before: diskBefore, after: DiskSizeWatch.Sample(of: url))
        try await store.flush()
        let info = try await store.info()
        try await BenchStore.closeAndDelete(store, at: url)

        let logged = calls.count.reduce(0, +)
        guard info.droppedEventCount == 0, info.messageCount == logged else {
            throw BenchError.failed("reader stall: \(info.messageCount) of \(logged) messages stored, dropped \(info.droppedEventCount)")
        }
        let before = commits.window(from: commits.start, to: holdStart)
        let holding = commits.window(from: holdStart, to: released)
        let after = commits.window(from: released, to: end)
        let longestGap = max(holding.maxGapMilliseconds, after.maxGapMilliseconds)
        let longestRead = max(reads.longestMilliseconds[1], reads.longestMilliseconds[2])
        print(
            "reader stall: a reader held a snapshot of \(seenByReader) messages for \(format(holdSeconds)) s while "
                + "\(Self.producers) threads logged \(calls.count[1]) (then \(calls.count[2]) in \(format(afterSeconds)) s "
                + "after it let go); longest gap between commits \(format(before.maxGapMilliseconds)) ms before, "
                + "\(format(holding.maxGapMilliseconds)) ms while it held, \(format(after.maxGapMilliseconds)) ms after; "
                + "longest storeMessage call \(milliseconds(calls.longest[0])) / \(milliseconds(calls.longest[1])) / "
                + "\(milliseconds(calls.longest[2])) ms; longest short read \(format(reads.longestMilliseconds[0])) / "
                + "\(format(reads.longestMilliseconds[1])) / \(format(reads.longestMilliseconds[2])) ms "
                + "(\(reads.count) reads); largest WAL \(format(Double(disk.largestWAL) / 1e6)) MB; commits polled every ≤ "
                + "\(format(max(holding.maxPollMilliseconds, after.maxPollMilliseconds))) ms")
        return [
            Figure(
                name: "reader.max_ingest_stall_ms", value: longestGap, baseline: Self.stallBudgetMilliseconds, unit: "ms",
                baselineDescription: "the sweep's budget (250 ms); ours: longest time between two commits of new messages "
                    + "while a reader holds one snapshot for \(format(holdSeconds)) s, and for \(format(afterSeconds)) s "
                    + "after it lets go, 4 threads logging at full speed (.waitForSpace, 0 dropped), polled as for the sweep",
                target: "≤ 1.0"),
            Figure(
                name: "reader.max_read_ms", value: longestRead, baseline: reads.longestMilliseconds[0], unit: "ms",
                baselineDescription: "the longest short query (`SELECT max(id)` through `read`, one after another) in the "
                    + "\(format(warmUpSeconds)) s of logging before; ours: the longest one while the long read holds its "
                    + "snapshot and after",
                target: "≤ 2.0"),
        ]
    }

    private func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    private func milliseconds(_ nanoseconds: UInt64) -> String {
        format(Double(nanoseconds) / 1e6)
    }
}

/// Short queries one after another through the public `read`, each timed, by the phase it
/// started in (``ProducerThreads/phase``).
struct ShortReads: Sendable {
    var count = 0
    var longestMilliseconds = [0.0, 0.0, 0.0]

    struct Running {
        let task: Task<ShortReads, any Error>

        func stop() async throws -> ShortReads {
            task.cancel()
            return try await task.value
        }
    }

    static func start(_ store: LogStore, phase: @escaping @Sendable () -> Int) -> Running {
        Running(task: Task {
            var reads = ShortReads()
            while !Task.isCancelled {
                let phase = phase()
                let start = Measure.now()
                _ = try await store.read { try $0.scalar("SELECT max(id) FROM messages") }
                reads.count += 1
                // The first reads open the connections: not a read's cost.
                if reads.count > 2 {
                    reads.longestMilliseconds[phase] = max(reads.longestMilliseconds[phase], Double(Measure.now() - start) / 1e6)
                }
                do {
                    try await Task.sleep(for: .milliseconds(2))
                } catch {
                    break
                }
            }
            return reads
        })
    }
}
