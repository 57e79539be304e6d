import Foundation
import LogStore
import Synchronization

/// The archive figures of issue 11, on one store: `rows` messages logged as the sweep benchmark
/// logs them (full-text index on, the default), and a network task every 100 messages with the
/// network benchmark's 2 KiB JSON bodies, every 50th task answering with 64 KiB of random bytes
/// (incompressible, so the store keeps it as a file in `blobs/`). The store is flushed and its
/// index caught up, its steady state, then closed; each figure has a baseline from this run:
///
/// - `export.archive_s`, `export.archive_bytes`: `export(to:)` of the whole store reopened
///   read-write (as a live app has it) beside `tar -czf` of the closed store directory.
/// - `export.peak_rss_mb`: the peak RSS of a child process that does one more such export
///   (``ArchiveExportChild``) beside the database's size.
/// - `archive.open_ms`: `LogStore(archiveURL:)` beside `tar -xzf` of the `.tar.gz`.
/// - `archive.query_latest100_ms`: the latest 100 messages from the opened archive beside the same
///   query on the original store opened `.readonly`.
struct ArchiveBenchmark {
    let rows: Int
    let directory: URL

    static let messagesPerTask = 100
    static let largeBodyEvery = 50
    static let largeBodySize = 64 * 1024
    static let opens = 3
    static let exportRounds = 3
    static let queries = 20

    var taskCount: Int { (rows + Self.messagesPerTask - 1) / Self.messagesPerTask }
    var largeBodyCount: Int { (taskCount + Self.largeBodyEvery - 1) / Self.largeBodyEvery }

    func run() async throws -> [Figure] {
        let storeURL = directory.appendingPathComponent("archive.logstore")
        let archiveURL = directory.appendingPathComponent("archive.\(ExportFormat.archive.fileExtension)")
        let tarURL = directory.appendingPathComponent("archive.tar.gz")
        defer {
            for url in [storeURL, archiveURL, tarURL] { try? FileManager.default.removeItem(at: url) }
        }
        let info = try await fill(storeURL)
        let storeBytes = Measure.allocatedBytes(ofStoreAt: storeURL)

        // Alternating rounds, each side's figure its median: the machine's noise (other builds
        // on its 2 cores) hits both sides alike.
        sync()
        var tars: [(seconds: Double, cpuSeconds: Double)] = []
        var exports: [ExportRun] = []
        for round in 0..<Self.exportRounds {
            if round > 0 {
                for url in [tarURL, archiveURL] { try FileManager.default.removeItem(at: url) }
            }
            tars.append(try Self.tar(["-czf", tarURL.path, "-C", directory.path, storeURL.lastPathComponent]))
            exports.append(try await exportArchive(storeURL, to: archiveURL))
        }
        let (tarSeconds, tarCPU) = tars.sorted { $0.seconds < $1.seconds }[tars.count / 2]
        let export = exports.sorted { $0.seconds < $1.seconds }[exports.count / 2]
        // Memory in a process of its own: this one holds what every earlier group left.
        try FileManager.default.removeItem(at: archiveURL)
        let child = try ArchiveExportChild.run(store: storeURL, archive: archiveURL)
        guard [rows, rows + taskCount].contains(child.messageCount) else {
            throw BenchError.failed("archive: the child's export wrote \(child.messageCount) messages")
        }
        let tarBytes = Self.fileSize(tarURL)
        let (untarMs, untarCPUMs) = try untar(tarURL)
        let (openMs, openCPUMs) = try await openArchive(archiveURL)
        let (archiveQueryMs, storeQueryMs) = try await latest100(archive: archiveURL, store: storeURL)

        let megabytes = { (bytes: Int64) in String(format: "%.1f MB", Double(bytes) / 1e6) }
        print(
            "archive: store of \(rows) messages, \(taskCount) tasks (\(largeBodyCount) bodies of 64 KiB in files): "
                + "\(megabytes(storeBytes)) on disk, database \(megabytes(info.databaseSize)), bodies \(megabytes(info.blobsSize)); "
                + String(format: "export %.2f s (%@), %.2f s of CPU (%@) to %@; in a child: peak RSS %.1f MB (%.1f MB resident before the export); ",
                    export.seconds, Self.range(exports.map(\.seconds)), export.cpuSeconds, export.phases,
                    megabytes(export.bytes), child.peakMB, child.residentBeforeMB)
                + String(format: "tar -czf %.2f s (%@), %.2f s of CPU, to %@ (medians of %d alternating rounds); ", tarSeconds,
                    Self.range(tars.map(\.seconds)), tarCPU, megabytes(tarBytes), Self.exportRounds)
                + String(format: "open %.0f ms, %.0f ms of CPU; tar -xzf %.0f ms, %.0f ms of CPU (medians of %d); ",
                    openMs, openCPUMs, untarMs, untarCPUMs, Self.opens)
                + String(format: "latest 100: archive %.3f ms, store %.3f ms (medians of %d)", archiveQueryMs,
                    storeQueryMs, Self.queries))

        let store = "\(rows) messages (search index on) and \(taskCount) tasks with 2 KiB JSON bodies, "
            + "\(largeBodyCount) of 64 KiB random in `blobs/`"
        return [
            Figure(
                name: "export.archive_s", value: export.seconds, baseline: tarSeconds, unit: "s",
                baselineDescription: "`tar -czf` (gzip -6, one core) of the closed store directory; ours: `export(to:)` of the "
                    + "whole store reopened read-write (VACUUM INTO, chunks compressed on every core, fsync), \(store); "
                    + "medians of \(Self.exportRounds) alternating rounds",
                target: "≤ 1.0×"),
            Figure(
                name: "export.archive_bytes", value: Double(export.bytes) / 1e6, baseline: Double(tarBytes) / 1e6, unit: "MB",
                baselineDescription: "the `.tar.gz` of `export.archive_s`; ours: the archive",
                target: "≤ 1.1×"),
            Figure(
                name: "export.peak_rss_mb", value: child.peakMB, baseline: Double(info.databaseSize) / 1e6, unit: "MB",
                baselineDescription: "the store's database (`info().databaseSize`); ours: the peak RSS (`VmHWM`) of a "
                    + "child process that opens the store read-write, exports it as `export.archive_s` does and exits, "
                    + String(format: "%.1f MB resident before its export", child.residentBeforeMB),
                target: "≤ 150 MB"),
            Figure(
                name: "archive.open_ms", value: openMs, baseline: untarMs, unit: "ms",
                baselineDescription: "`tar -xzf` of the `.tar.gz` into a new directory; ours: `LogStore(archiveURL:)` of the "
                    + "archive (checks, extraction on every core), closed after; medians of \(Self.opens)",
                target: "≤ 2,000 ms for 1M"),
            Figure(
                name: "archive.query_latest100_ms", value: archiveQueryMs, baseline: storeQueryMs, unit: "ms",
                baselineDescription: "`messages(MessageQuery(limit: 100))` on the original store opened `.readonly`; ours: the "
                    + "same on the opened archive; medians of \(Self.queries)",
                target: "≈ 1.0×"),
        ]
    }

    // MARK: The store

    /// Fills the store, waits (bounded) for the index to catch up, closes it; returns its info.
    private func fill(_ url: URL) async throws -> LogStore.Info {
        let store = try await BenchStore.open(at: url)
        let rows = rows
        let bodies = NetworkBodies()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<IngestBenchmark.producers {
                group.addTask {
                    for row in stride(from: producer, to: rows, by: IngestBenchmark.producers) {
                        SweepBenchmark.log(row: row, into: store)
                        guard row % Self.messagesPerTask == 0 else { continue }
                        let task = row / Self.messagesPerTask
                        let large = task % Self.largeBodyEvery == 0 ? Self.randomBody(seed: UInt64(task)) : nil
                        bodies.store(task: task, into: store, responseBody: large)
                    }
                }
            }
        }
        try await store.flush()
        let deadline = Measure.now() + 600 * 1_000_000_000
        var info = try await store.info()
        while info.unindexedMessageCount > 0 {
            guard Measure.now() < deadline else {
                try? await store.close()
                throw BenchError.failed("archive: \(info.unindexedMessageCount) messages still unindexed after 600 s")
            }
            try await Task.sleep(for: .milliseconds(100))
            info = try await store.info()
        }
        try await store.close()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)) ?? []
        guard info.messageCount == rows, info.taskCount == taskCount, info.droppedEventCount == 0,
            info.rejectedEventCount == 0, files.count >= largeBodyCount
        else {
            throw BenchError.failed(
                "archive: \(info.messageCount) of \(rows) messages, \(info.taskCount) of \(taskCount) tasks, "
                    + "\(files.count) of \(largeBodyCount) body files, \(info.droppedEventCount) dropped")
        }
        return info
    }

    /// 64 KiB that do not compress: the store keeps them as they are, in a file.
    private static func randomBody(seed: UInt64) -> Data {
        var data = Data(count: largeBodySize)
        data.withUnsafeMutableBytes { raw in
            for index in 0..<(largeBodySize / 8) {
                raw.storeBytes(
                    of: BenchRow.splitmix64(seed << 20 | UInt64(index)), toByteOffset: index * 8, as: UInt64.self)
            }
        }
        return data
    }

    // MARK: Export

    /// When each phase of an export began, from its progress callback (which reports every new
    /// phase at once).
    private final class PhaseClock: Sendable {
        let marks = Mutex<[(phase: ExportProgress.Phase, at: UInt64)]>([])

        func record(_ progress: ExportProgress) {
            let now = Measure.now()
            marks.withLock { marks in
                if marks.last?.phase != progress.phase { marks.append((progress.phase, now)) }
            }
        }

        /// "copying 1.23 s, bodies 0.01 s, …, finished at +0.02 s" from `start` to `end`.
        func summary(start: UInt64, end: UInt64) -> String {
            let marks = marks.withLock { $0 }
            var parts: [String] = []
            for (index, mark) in marks.enumerated() {
                let next = index + 1 < marks.count ? marks[index + 1].at : end
                guard mark.phase != .finished else {
                    parts.append(String(format: "then %.2f s to return", Double(end - mark.at) / 1e9))
                    continue
                }
                parts.append(String(format: "%@ %.2f s", mark.phase.rawValue, Double(next - mark.at) / 1e9))
            }
            if let first = marks.first { parts.insert(String(format: "%.2f s to start", Double(first.at - start) / 1e9), at: 0) }
            return parts.joined(separator: ", ")
        }
    }

    struct ExportRun {
        var seconds: Double
        var cpuSeconds: Double
        var bytes: Int64
        var phases: String
    }

    private func exportArchive(_ storeURL: URL, to archiveURL: URL) async throws -> ExportRun {
        let store = try await BenchStore.open(at: storeURL, options: [])
        let clock = PhaseClock()
        let report: ExportReport
        let start: UInt64
        let end: UInt64
        let startCPU = Measure.processCPUSeconds()
        do {
            start = Measure.now()
            report = try await store.export(to: archiveURL, progress: { clock.record($0) })
            end = Measure.now()
        } catch {
            try? await store.close()
            throw error
        }
        let cpuSeconds = Measure.processCPUSeconds() - startCPU
        try await store.close()
        // The report counts the tasks' technical messages too (`info().messageCount` does not).
        guard [rows, rows + taskCount].contains(report.messageCount), report.taskCount == taskCount else {
            throw BenchError.failed("archive: the export wrote \(report.messageCount) messages, \(report.taskCount) tasks")
        }
        return ExportRun(
            seconds: Double(end - start) / 1e9, cpuSeconds: cpuSeconds, bytes: Self.fileSize(archiveURL),
            phases: clock.summary(start: start, end: end))
    }

    // MARK: Opening and querying

    /// The medians of the wall time and of the CPU time (every thread) of ``opens`` opens.
    private func openArchive(_ url: URL) async throws -> (ms: Double, cpuMs: Double) {
        var samples: [Double] = []
        var cpuSamples: [Double] = []
        for _ in 0..<Self.opens {
            let startCPU = Measure.processCPUSeconds()
            let start = Measure.now()
            let archive = try await LogStore(archiveURL: url)
            samples.append(Measure.milliseconds(since: start))
            cpuSamples.append((Measure.processCPUSeconds() - startCPU) * 1000)
            try await archive.close()
        }
        return (Measure.median(samples), Measure.median(cpuSamples))
    }

    /// The medians of the wall time and of the CPU time (tar and gzip) of ``opens`` extractions.
    private func untar(_ tarURL: URL) throws -> (ms: Double, cpuMs: Double) {
        var samples: [Double] = []
        var cpuSamples: [Double] = []
        for index in 0..<Self.opens {
            let target = directory.appendingPathComponent("archive-untar-\(index)")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: target) }
            let run = try Self.tar(["-xzf", tarURL.path, "-C", target.path])
            samples.append(run.seconds * 1000)
            cpuSamples.append(run.cpuSeconds * 1000)
        }
        return (Measure.median(samples), Measure.median(cpuSamples))
    }

    /// The median of ``queries`` latest-100 pages, after one to warm up, on the archive and on
    /// the store.
    private func latest100(archive archiveURL: URL, store storeURL: URL) async throws -> (archive: Double, store: Double) {
        let query = MessageQuery(limit: 100)
        var results: [Double] = []
        for open in [
            { try await LogStore(archiveURL: archiveURL) },
            { try await LogStore(storeURL: storeURL, options: [.readonly]) },
        ] as [() async throws -> LogStore] {
            let store = try await open()
            do {
                guard try await store.messages(query).messages.count == 100 else {
                    throw BenchError.failed("archive: the latest-100 query returned fewer rows")
                }
                results.append(try await Measure.medianMilliseconds(repeats: Self.queries) {
                    _ = try await store.messages(query)
                })
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
        }
        return (results[0], results[1])
    }

    // MARK: Helpers

    /// Runs `/bin/tar` with `arguments`; returns its wall time in seconds, and the CPU time it
    /// and its `gzip` took.
    private static func tar(_ arguments: [String]) throws -> (seconds: Double, cpuSeconds: Double) {
        let startCPU = childrenCPUSeconds()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/tar")
        process.arguments = arguments
        let start = Measure.now()
        try process.run()
        process.waitUntilExit()
        let seconds = Measure.seconds(since: start)
        guard process.terminationStatus == 0 else {
            throw BenchError.failed("tar \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return (seconds, childrenCPUSeconds() - startCPU)
    }

    /// CPU time (user and system) of the child processes waited for so far.
    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func range(_ values: [Double]) -> String {
        String(format: "%.2f–%.2f", values.min() ?? 0, values.max() ?? 0)
    }

    private static func fileSize(_ url: URL) -> Int64 {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
