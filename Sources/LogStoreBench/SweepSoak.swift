import Foundation
import LogStore
import Synchronization

/// `sweep.bounded_size` and `sweep.final_size` (64 MB), `sweep.bounded_size_small` and
/// `sweep.final_size_small` (8 MB): a new store opened with `[.create, .sweep]` and that
/// `sizeLimit` (every other setting default but `.waitForSpace`), fed at full speed
/// by 4 threads for 60 s (`--quick`: 20 s): messages, and network tasks with JSON bodies (one in 8
/// calls a task with 2 KiB bodies, half of them repeated; one in 64 a task with a distinct body of
/// 64 or 128 KiB, ``LargeBodies``), all dated now. Its on-disk size
/// (``Measure/allocatedBytes(ofStoreAt:)``) is sampled every 100 ms.
struct SweepSoak {
    let quick: Bool
    let directory: URL

    /// The size limit, and the suffix of the figures' names (`""` or `"_small"`).
    var sizeLimit: Int64 = 64_000_000
    var suffix = ""
    static let producers = 4
    static let sampleInterval: Duration = .milliseconds(100)
    var seconds: Int { quick ? 20 : 60 }

    func run() async throws -> [Figure] {
        let url = directory.appendingPathComponent("sweep-soak.logstore")
        var configuration = LogStore.Configuration()
        configuration.sizeLimit = sizeLimit
        let store = try await BenchStore.open(at: url, options: [.create, .sweep], configuration: configuration)
        let small = NetworkBodies()
        let large = LargeBodies()
        let producers = ProducerThreads<Logged>.start(count: Self.producers, name: "soak-producer") { index, control in
            var logged = Logged()
            // Call k of producer p: message row k × producers + p; a 2 KiB task at every 8th call
            // and a large one at every 64th, numbered the same way, so every number is used once.
            var call = 0
            while !control.isStopped {
                Self.log(row: call * Self.producers + index, into: store)
                logged.messages += 1
                if call % 8 == 0 {
                    small.store(task: call / 8 * Self.producers + index, into: store)
                    logged.smallTasks += 1
                }
                if call % 64 == 1 {
                    large.store(task: call / 64 * Self.producers + index, into: store)
                    logged.largeTasks += 1
                }
                call += 1
            }
            return logged
        }
        let sampler = SizeSampler.start(store: store, url: url, limit: sizeLimit)
        try await Task.sleep(for: .seconds(seconds))
        let logged = Logged.sum(await producers.stop())
        let samples = try await sampler.stop()
        try await store.flush()
        let flushedSize = Measure.allocatedBytes(ofStoreAt: url)
        let settleSeconds = try await settle(store, at: url)
        let info = try await store.info()
        let ids = try await store.read { reader in
            try reader.rows("SELECT coalesce(min(id), 0), coalesce(max(id), 0) FROM messages")[0].values
                .map { $0.integer ?? 0 }
        }
        let blobFiles = (try? FileManager.default.contentsOfDirectory(atPath: url.path + "/blobs"))?.count ?? 0
        try await store.close()
        let closedSize = Measure.allocatedBytes(ofStoreAt: url)
        try? FileManager.default.removeItem(at: url)
        guard info.droppedEventCount == 0, info.writeErrorCount == 0 else {
            throw BenchError.failed(
                "soak: dropped \(info.droppedEventCount), \(info.writeErrorCount) write errors "
                    + "(\(info.lastWriteError?.description ?? "none"))")
        }

        let limit = Double(sizeLimit)
        var sweeps = samples.sweeps
        if let last = info.lastSweep { sweeps.insert(last) }
        let triggers = Dictionary(grouping: sweeps, by: \.trigger).map { "\($0.value.count) \($0.key.rawValue)" }
            .sorted().joined(separator: ", ")
        let longest = sweeps.max { $0.duration < $1.duration }
        let load = "\(seconds) s, \(Self.producers) threads, \(logged.messages) messages + \(logged.smallTasks) 2 KiB "
            + "tasks + \(logged.largeTasks) 64/128 KiB tasks "
            + "(\(FigureReport.format(Double(logged.messages) / Double(seconds))) messages/s)"
        let overLimit = samples.firstOverLimitSeconds.map { format("%.1f s", $0) } ?? "never"
        let sizes = "limit \(mb(sizeLimit)), peak \(mb(samples.peak)) (blobs \(mb(samples.peakBlobs)), WAL "
            + "\(mb(samples.peakWAL)), pages \(samples.peakPages), free \(samples.peakFreePages); largest WAL \(mb(samples.largestWAL))) at \(format("%.1f s", samples.peakSeconds)) "
            + "of \(samples.count) samples, first over the limit at \(overLimit), over it in \(samples.overLimit) "
            + "samples; after flush \(mb(flushedSize)), after the size sweeps it set off "
            + "(\(format("%.1f s", settleSeconds))) and close \(mb(closedSize)); longest time without a "
            + "commit \(format("%.1f s", samples.longestWithoutCommit))"
        let sweepSummary = "\(sweeps.count) sweeps seen (\(triggers.isEmpty ? "none" : triggers)), longest "
            + "\(format("%.2f s", longest.map { $0.duration / .seconds(1) } ?? 0)); last: \(describe(info.lastSweep))"
        let contents = "\(info.messageCount) messages (ids \(ids[0])…\(ids[1])), \(info.taskCount) tasks, "
            + "\(info.blobCount) blobs (\(blobFiles) files), database \(mb(info.databaseSize)), "
            + "blobs \(mb(info.blobsSize))"
        print("sweep soak: \(load); \(sizes); \(sweepSummary); at the end \(contents)")
        let description = "the size limit (\(sizeLimit / 1_000_000) MB); ours: on-disk size (st_blocks of the database, WAL and blob files) "
            + "sampled every 100 ms while 4 threads log messages and tasks with 2–128 KiB JSON bodies at full speed "
            + "for \(seconds) s into a store opened with `.sweep`"
        return [
            Figure(
                name: "sweep.bounded_size" + suffix, value: Double(samples.peak) / limit, baseline: 1, unit: "× limit",
                baselineDescription: "peak / " + description, target: "≤ 1.25 (and ends ≤ 1.0)"),
            Figure(
                name: "sweep.final_size" + suffix, value: Double(closedSize) / limit, baseline: 1, unit: "× limit",
                baselineDescription: "size once logging stopped, the size sweeps it set off finished, and `close()` / "
                    + description, target: "≤ 1.0"),
        ]
    }

    /// Waits, after logging stops, until the store is within its limit or no size sweep has
    /// finished for 2 s (at most 20 s): the sweeps the writer's size check set off are the
    /// store's own way back under the limit. Returns the seconds waited.
    private func settle(_ store: LogStore, at url: URL) async throws -> Double {
        let start = Measure.now()
        var lastSweep = try await store.info().lastSweep?.date
        var quietSince = Measure.now()
        while Measure.seconds(since: start) < 20 {
            if Measure.allocatedBytes(ofStoreAt: url) <= sizeLimit { break }
            let sweep = try await store.info().lastSweep?.date
            if sweep != lastSweep {
                lastSweep = sweep
                quietSince = Measure.now()
            } else if Measure.seconds(since: quietSince) > 2 {
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return Measure.seconds(since: start)
    }

    /// What one producer logged.
    struct Logged: Sendable {
        var messages = 0
        var smallTasks = 0
        var largeTasks = 0

        static func sum(_ all: [Logged]) -> Logged {
            all.reduce(into: Logged()) { total, one in
                total.messages += one.messages
                total.smallTasks += one.smallTasks
                total.largeTasks += one.largeTasks
            }
        }
    }

    /// Row `row`'s message, dated now (as the tasks are), so the age rule has nothing to remove.
    private static func log(row: Int, into store: LogStore) {
        let row = BenchRow(UInt64(row))
        store.storeMessage(
            label: row.label, level: row.level, message: row.text, metadata: row.metadata, file: "Handler.swift",
            function: "handle(_:)", line: 42)
    }

    private func mb(_ bytes: Int64) -> String {
        format("%.1f MB", Double(bytes) / 1e6)
    }

    private func format(_ format: String, _ value: Double) -> String {
        String(format: format, value)
    }

    private func describe(_ report: LogStore.SweepReport?) -> String {
        guard let report else { return "none" }
        return "\(report.trigger.rawValue), \(format("%.2f s", report.duration / .seconds(1))), removed "
            + "\(report.removedMessages) messages, \(report.removedTasks) tasks, \(report.removedBlobs) blobs, "
            + "\(report.droppedBodies) bodies dropped, \(mb(report.sizeBefore)) → \(mb(report.sizeAfter))"
    }
}

/// Samples a store's on-disk size every ``SweepSoak/sampleInterval``, notes each new
/// `info().lastSweep` and whether new messages were committed (`max(id)`), from a task.
struct SizeSampler: Sendable {
    var count = 0
    var peak: Int64 = 0
    var peakSeconds = 0.0
    /// At the peak: the blob files, and the WAL, of ``peak``.
    var peakBlobs: Int64 = 0
    var peakWAL: Int64 = 0
    var peakFreePages: Int64 = 0
    var peakPages: Int64 = 0
    /// The largest the WAL was in any sample.
    var largestWAL: Int64 = 0
    var firstOverLimitSeconds: Double?
    var overLimit = 0
    var sweeps: Set<LogStore.SweepReport> = []
    /// The longest run of samples in which `max(id)` of the messages did not move: no commit of
    /// new events for that long (to within a sample interval).
    var longestWithoutCommit = 0.0

    struct Running {
        let task: Task<SizeSampler, any Error>

        func stop() async throws -> SizeSampler {
            task.cancel()
            return try await task.value
        }
    }

    static func start(store: LogStore, url: URL, limit: Int64) -> Running {
        Running(task: Task {
            var sampler = SizeSampler()
            let clock = ContinuousClock()
            let start = Measure.now()
            var next = clock.now
            var newest: Int64?
            var lastCommitSeen = 0.0
            while !Task.isCancelled {
                let size = Measure.allocatedBytes(ofStoreAt: url)
                let seconds = Measure.seconds(since: start)
                let id = try await store.read { try $0.scalar("SELECT max(id) FROM messages")?.integer }
                if id != newest {
                    (newest, lastCommitSeen) = (id, seconds)
                } else {
                    sampler.longestWithoutCommit = max(sampler.longestWithoutCommit, seconds - lastCommitSeen)
                }
                sampler.count += 1
                let wal = Measure.allocatedBytes(ofFile: url.path + "/logs.sqlite-wal")
                sampler.largestWAL = max(sampler.largestWAL, wal)
                if size > sampler.peak {
                    (sampler.peak, sampler.peakSeconds, sampler.peakWAL) = (size, seconds, wal)
                    sampler.peakBlobs = Measure.allocatedBytes(inDirectory: url.path + "/blobs")
                    sampler.peakFreePages = try await store.read { try $0.scalar("PRAGMA freelist_count")?.integer } ?? -1
                    sampler.peakPages = try await store.read { try $0.scalar("PRAGMA page_count")?.integer } ?? -1
                }
                if size > limit {
                    sampler.overLimit += 1
                    if sampler.firstOverLimitSeconds == nil { sampler.firstOverLimitSeconds = seconds }
                }
                if let report = try await store.info().lastSweep { sampler.sweeps.insert(report) }
                next = next.advanced(by: SweepSoak.sampleInterval)
                do {
                    try await Task.sleep(until: max(next, clock.now), clock: clock)
                } catch {
                    break
                }
            }
            return sampler
        })
    }
}

/// Distinct JSON bodies of up to 64 KiB and 128 KiB, alternately (``JSONBodies`` pages): zlib level
/// 1 takes them to ~15 KB and ~31 KB, so the larger ones are over the default 16 KiB inline limit
/// and become files in `blobs/`. Each task gets a pool page with its `request_id` replaced by the
/// task's number, so no two tasks share a body (no deduplication).
struct LargeBodies: Sendable {
    static let sizes = [64 << 10, 128 << 10]
    /// Pool pages, alternately of each size.
    let bodies: [Data]
    /// Where each page's 16 hex digits of `request_id` are.
    let idOffsets: [Int]
    let url = URL(string: "https://api.example.com/v2/orders?per_page=40")

    init() {
        var pools: [[(body: Data, idOffset: Int)]] = []
        let marker = Data(#""request_id":""#.utf8)
        for size in Self.sizes {
            let (bytes, lengths) = JSONBodies.make(totalBytes: 8 * size, bodySize: size)
            var pool: [(body: Data, idOffset: Int)] = []
            var start = 0
            for length in lengths {
                let body = Data(bytes[start..<(start + length)])
                start += length
                if let range = body.range(of: marker) { pool.append((body, range.upperBound)) }
            }
            precondition(!pool.isEmpty, "JSONBodies pages carry a request_id")
            pools.append(pool)
        }
        let pages = zip(pools[0], pools[1]).flatMap { [$0, $1] }
        bodies = pages.map(\.body)
        idOffsets = pages.map(\.idOffset)
    }

    /// Stores task `index`: a GET whose response body is pool page `index % count` with
    /// `request_id` set to `index`.
    func store(task index: Int, into store: LogStore) {
        let page = index % bodies.count
        var body = bodies[page]
        let id = BodyTemplate.hex(UInt64(index), digits: 16)
        body.replaceSubrange(idOffsets[page]..<(idOffsets[page] + 16), with: Data(id.utf8))
        store.storeRequest(
            NetworkRequest(
                url: url, method: "GET",
                headers: ["Accept": "application/json", "User-Agent": "ShopApp/5.13.0 (Linux)"]),
            response: NetworkResponse(
                url: url, statusCode: 200,
                headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"]),
            error: nil, data: body)
    }
}
