import Foundation
import LogStore
import Synchronization

/// `logstore-bench --steady-soak MINUTES` (Scripts/soak.sh): a store opened as an app opens it
/// (`[.create, .sweep]`, the default overflow policy, so an overloaded writer shows as drops)
/// with a size and an age limit, fed at a steady, realistic rate for MINUTES — not full speed as
/// ``SweepSoak`` is: memory that grows with time, a size the sweep does not hold, or events
/// dropped at a rate the writer should sustain are what this looks for.
///
/// One ticker thread issues, every 10 ms tick, 50 messages and 5 network tasks (5,000/s and
/// 500/s). A task has 2 KiB JSON request and response bodies (``NetworkBodies``: half of them
/// repeat, so deduplication is exercised; compressed they stay inline in the database); one task in
/// 50 has a distinct 64 or 128 KiB response instead (``LargeBodies``: the 128 KiB ones become files
/// in `blobs/`). A late tick is caught up, so the average rate holds unless the machine cannot
/// keep it; the achieved rates are printed.
///
/// Every 10 s it prints elapsed time, RSS, the on-disk size, rows, dropped events, write errors
/// and the rates; at the end, a verdict against ``rssTolerance`` and ``sizeSlack``, and a table
/// sampled every 60 s. Exit status 1 when the verdict fails.
struct SteadySoak {
    let minutes: Double
    let directory: URL

    static let tick: Duration = .milliseconds(10)
    static let messagesPerTick = 50
    static let tasksPerTick = 5
    /// One task in this many carries a large distinct body.
    static let largeBodyEvery = 50
    static let sizeLimit: Int64 = 128_000_000
    static let maxAge: Duration = .seconds(120)
    static let sweepInterval: Duration = .seconds(30)
    /// RSS may grow by this much between the end of warm-up and the end of the run.
    static let rssTolerance = 20.0
    /// The on-disk size may exceed the limit by this share while a sweep catches up (the
    /// benchmark's `sweep.bounded_size` target).
    static let sizeSlack = 0.25
    static let reportInterval = 10.0
    static let tableInterval = 60.0

    /// Runs the soak when the arguments ask for it: the exit status, or `nil` when they don't.
    static func runIfAsked(_ arguments: [String]) async -> Int32? {
        guard let index = arguments.firstIndex(of: "--steady-soak") else { return nil }
        let value = index + 1 < arguments.count ? Double(arguments[index + 1]) : nil
        guard let minutes = value, minutes > 0 else {
            FileHandle.standardError.write(Data("--steady-soak needs a number of minutes\n".utf8))
            return 64
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("logstore-steady-soak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return try await SteadySoak(minutes: minutes, directory: directory).run() ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("steady soak: \(error)\n".utf8))
            return 1
        }
    }

    /// One 10 s report.
    struct Sample {
        var seconds: Double
        var rssMB: Double
        var sizeMB: Double
        var messages: Int
        var tasks: Int
        var dropped: Int
        var writeErrors: Int
        var messageRate: Double
        var taskRate: Double
    }

    /// Runs the soak and prints its reports; whether the verdict passed.
    func run() async throws -> Bool {
        let url = directory.appendingPathComponent("soak.logstore")
        var configuration = LogStore.Configuration()
        configuration.sizeLimit = Self.sizeLimit
        configuration.maxAge = Self.maxAge
        configuration.sweepInterval = Self.sweepInterval
        let store = try await LogStore(storeURL: url, options: [.create, .sweep], configuration: configuration)
        let total = minutes * 60
        let warmUp = min(60, total / 2)
        emit(
            "steady soak: \(format("%g", minutes)) min, \(Self.messagesPerTick * 100) messages/s and "
                + "\(Self.tasksPerTick * 100) tasks/s (1 in \(Self.largeBodyEvery) with a 64/128 KiB body), "
                + "size limit \(Self.sizeLimit / 1_000_000) MB, max age \(Self.maxAge), sweep every "
                + "\(Self.sweepInterval); warm-up \(format("%.0f", warmUp)) s")
        emit("  elapsed    RSS MB   size MB     messages      tasks  dropped  errors    msg/s   task/s")

        let counters = TickerCounters()
        let ticker = ProducerThreads<Void>.start(count: 1, name: "soak-ticker") { _, control in
            Self.tick(into: store, counters: counters, control: control)
        }
        let start = Measure.now()
        var samples: [Sample] = []
        var sizePeak: Int64 = 0
        var sweeps: Set<LogStore.SweepReport> = []
        var last = (seconds: 0.0, messages: 0, tasks: 0)
        var nextReport = Self.reportInterval
        while Measure.seconds(since: start) < total {
            try await Task.sleep(for: .seconds(1))
            sizePeak = max(sizePeak, Measure.allocatedBytes(ofStoreAt: url))
            let seconds = Measure.seconds(since: start)
            guard seconds >= nextReport || seconds >= total else { continue }
            nextReport += Self.reportInterval
            let info = try await store.info()
            if let sweep = info.lastSweep { sweeps.insert(sweep) }
            let issued = counters.issued
            let span = seconds - last.seconds
            let sample = Sample(
                seconds: seconds, rssMB: Self.residentMegabytes(),
                sizeMB: Double(Measure.allocatedBytes(ofStoreAt: url)) / 1e6, messages: info.messageCount,
                tasks: info.taskCount, dropped: info.droppedEventCount, writeErrors: info.writeErrorCount,
                messageRate: Double(issued.messages - last.messages) / span,
                taskRate: Double(issued.tasks - last.tasks) / span)
            last = (seconds, issued.messages, issued.tasks)
            samples.append(sample)
            emit(line(sample))
        }
        _ = await ticker.stop()
        let issued = counters.issued
        let elapsed = Measure.seconds(since: start)
        try await store.flush()
        let info = try await store.info()
        if let sweep = info.lastSweep { sweeps.insert(sweep) }
        try await store.close()
        return verdict(
            samples: samples, warmUp: warmUp, sizePeak: sizePeak, info: info, sweeps: sweeps,
            issued: issued, elapsed: elapsed, lateTicks: counters.lateTicks)
    }

    /// The ticker's loop: issues each 10 ms tick's events, catching up the ticks it missed.
    private static func tick(into store: LogStore, counters: TickerCounters, control: ProducerThreads<Void>) {
        let small = NetworkBodies()
        let large = LargeBodies()
        let tickNanoseconds = UInt64(tick / .nanoseconds(1))
        let start = Measure.now()
        var tick = 0
        while !control.isStopped {
            let due = Int((Measure.now() - start) / tickNanoseconds)
            if due > tick { counters.noteLate(due - tick) }
            while tick <= due {
                for offset in 0..<messagesPerTick {
                    let row = BenchRow(UInt64(tick * messagesPerTick + offset))
                    store.storeMessage(
                        label: row.label, level: row.level, message: row.text, metadata: row.metadata,
                        file: "Handler.swift", function: "handle(_:)", line: 42)
                }
                for offset in 0..<tasksPerTick {
                    let index = tick * tasksPerTick + offset
                    if index % largeBodyEvery == 0 {
                        large.store(task: index / largeBodyEvery, into: store)
                    } else {
                        small.store(task: index, into: store)
                    }
                }
                counters.add(messages: messagesPerTick, tasks: tasksPerTick)
                tick += 1
            }
            let next = start + UInt64(tick) * tickNanoseconds
            let now = Measure.now()
            if next > now { usleep(UInt32((next - now) / 1000)) }
        }
    }

    /// Prints the summary and the 60 s table; whether RSS, size and drops are within bounds.
    private func verdict(
        samples: [Sample], warmUp: Double, sizePeak: Int64, info: LogStore.Info, sweeps: Set<LogStore.SweepReport>,
        issued: (messages: Int, tasks: Int), elapsed: Double, lateTicks: Int
    ) -> Bool {
        guard let end = samples.last, let warm = samples.first(where: { $0.seconds >= warmUp - 0.5 }) else {
            emit("steady soak: too short to judge (no sample after warm-up)")
            return false
        }
        let after = samples.filter { $0.seconds >= warm.seconds }
        let slope = Self.slopePerMinute(after.map { ($0.seconds, $0.rssMB) })
        let growth = end.rssMB - warm.rssMB
        let limitMB = Double(Self.sizeLimit) / 1e6
        let peakMB = Double(sizePeak) / 1e6
        let triggers = Dictionary(grouping: sweeps, by: \.trigger).map { "\($0.value.count) \($0.key.rawValue)" }
            .sorted().joined(separator: ", ")
        emit("")
        emit(
            "issued \(issued.messages) messages and \(issued.tasks) tasks in \(format("%.0f", elapsed)) s "
                + "(\(format("%.0f", Double(issued.messages) / elapsed)) messages/s, "
                + "\(format("%.0f", Double(issued.tasks) / elapsed)) tasks/s); \(lateTicks) ticks issued late")
        emit(
            "RSS at warm-up (\(format("%.0f", warm.seconds)) s) \(format("%.1f", warm.rssMB)) MB, at the end "
                + "\(format("%.1f", end.rssMB)) MB (\(format("%+.1f", growth)) MB; tolerance "
                + "\(format("%.0f", Self.rssTolerance)) MB); slope after warm-up \(format("%+.2f", slope)) MB/min")
        emit(
            "size peak \(format("%.1f", peakMB)) MB of the \(format("%.0f", limitMB)) MB limit "
                + "(slack \(format("%.0f", Self.sizeSlack * 100)) %); distinct sweeps seen: "
                + "\(triggers.isEmpty ? "none" : triggers)")
        emit(
            "dropped \(info.droppedEventCount), write errors \(info.writeErrorCount), rejected "
                + "\(info.rejectedEventCount); at the end \(info.messageCount) messages, \(info.taskCount) tasks, "
                + "\(info.blobCount) blobs")
        emit("\n| elapsed | RSS MB | size MB | messages | tasks | dropped | msg/s | task/s |")
        emit("|---:|---:|---:|---:|---:|---:|---:|---:|")
        var nextRow = Self.tableInterval
        for sample in samples where sample.seconds >= nextRow - 0.5 || sample.seconds == end.seconds {
            nextRow = (sample.seconds / Self.tableInterval).rounded() * Self.tableInterval + Self.tableInterval
            emit(
                "| \(format("%.0f", sample.seconds)) s | \(format("%.1f", sample.rssMB)) | "
                    + "\(format("%.1f", sample.sizeMB)) | \(sample.messages) | \(sample.tasks) | \(sample.dropped) | "
                    + "\(format("%.0f", sample.messageRate)) | \(format("%.0f", sample.taskRate)) |")
        }
        var failures: [String] = []
        if growth > Self.rssTolerance { failures.append("RSS grew \(format("%.1f", growth)) MB after warm-up") }
        if peakMB > limitMB * (1 + Self.sizeSlack) { failures.append("size peaked at \(format("%.1f", peakMB)) MB") }
        if info.droppedEventCount > 0 { failures.append("\(info.droppedEventCount) events dropped") }
        if info.writeErrorCount > 0 { failures.append("\(info.writeErrorCount) write errors") }
        emit(failures.isEmpty ? "\nsteady soak: PASS" : "\nsteady soak: FAIL: " + failures.joined(separator: "; "))
        return failures.isEmpty
    }

    private func line(_ sample: Sample) -> String {
        format("%7.0f s", sample.seconds) + format("%10.1f", sample.rssMB) + format("%10.1f", sample.sizeMB)
            + String(repeating: " ", count: 1) + pad(sample.messages, 12) + pad(sample.tasks, 11)
            + pad(sample.dropped, 9) + pad(sample.writeErrors, 8) + format("%9.0f", sample.messageRate)
            + format("%9.0f", sample.taskRate)
    }

    /// Writes one line at once, unbuffered: each report shows as it happens, also into a pipe
    /// or a file (`Scripts/soak.sh 10 | tee soak.log`), where `print` would hold it back.
    private func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private func format(_ format: String, _ value: Double) -> String {
        String(format: format, value)
    }

    /// VmRSS of this process, in MB (1e6 bytes); 0 when /proc is unreadable.
    static func residentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes * 1024 / 1e6
        }
        return 0
    }

    /// The least-squares slope of `points` (seconds, MB), in MB per minute.
    static func slopePerMinute(_ points: [(Double, Double)]) -> Double {
        guard points.count > 1 else { return 0 }
        let count = Double(points.count)
        let meanX = points.map(\.0).reduce(0, +) / count
        let meanY = points.map(\.1).reduce(0, +) / count
        let covariance = points.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +)
        let variance = points.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        return variance > 0 ? covariance / variance * 60 : 0
    }
}

/// What the ticker has issued, read by the reporting loop.
final class TickerCounters: Sendable {
    private let messages = Atomic<Int>(0)
    private let tasks = Atomic<Int>(0)
    private let late = Atomic<Int>(0)

    func add(messages: Int, tasks: Int) {
        self.messages.add(messages, ordering: .relaxed)
        self.tasks.add(tasks, ordering: .relaxed)
    }

    /// Counts ticks issued after their time.
    func noteLate(_ ticks: Int) {
        late.add(ticks, ordering: .relaxed)
    }

    var issued: (messages: Int, tasks: Int) {
        (messages.load(ordering: .relaxed), tasks.load(ordering: .relaxed))
    }

    var lateTicks: Int { late.load(ordering: .relaxed) }
}
