import Foundation
import LogStore

/// `ingest.failing_*`: a store whose every commit fails for a while under full load.
///
/// Another process (`sqlite3`) holds `BEGIN EXCLUSIVE` on the store's database, so each commit
/// waits out the busy timeout and fails with SQLITE_BUSY, for 60 s (10 s with `--quick`) while
/// two threads log 1 KiB messages as fast as they can. The pending events must stay within
/// `maxPendingEvents` and `maxPendingBytes` (the figure is the peak of `info().pendingEventBytes`
/// against the configured bound), what did not fit is counted as dropped, and once the lock is
/// released logging resumes: the time until `flush()` returns is the second figure.
struct FailingBenchmark {
    let quick: Bool
    let directory: URL
    static let sqlite3 = "/usr/bin/sqlite3"
    static let bound = 16 * 1024 * 1024

    func run() async throws -> [Figure] {
        guard FileManager.default.isExecutableFile(atPath: Self.sqlite3) else {
            print("failing: skipped (\(Self.sqlite3) is missing)")
            return []
        }
        let url = directory.appendingPathComponent("failing.logstore")
        var configuration = LogStore.Configuration()
        configuration.maxPendingBytes = Self.bound
        let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
        store.storeMessage(label: "bench", level: .info, message: "before")
        try await store.flush()

        let lock = try DatabaseLock(database: url.appendingPathComponent("logs.sqlite"))
        let text = String(repeating: "f", count: 1_024)
        let producers = ProducerThreads<Int>.start(count: 2, name: "failing") { _, producers in
            var logged = 0
            while !producers.isStopped {
                store.storeMessage(label: "bench", level: .info, message: text)
                logged += 1
            }
            return logged
        }
        let seconds = quick ? 10.0 : 60.0
        let start = Measure.now()
        var peakBytes = 0
        var peakCount = 0
        while Measure.seconds(since: start) < seconds {
            try await Task.sleep(for: .milliseconds(50))
            let info = try await store.info()
            peakBytes = max(peakBytes, info.pendingEventBytes)
            peakCount = max(peakCount, info.pendingEventCount)
        }
        let failing = try await store.info()
        let released = Measure.now()
        try lock.release()
        let logged = await producers.stop().reduce(0, +)
        try await store.flush()
        let resumeMilliseconds = Measure.milliseconds(since: released)
        let after = try await store.info()
        try await store.close()
        print(
            "failing: \(logged) logged in \(Int(seconds)) s, \(failing.writeErrorCount) failed commits, "
                + "\(after.droppedEventCount) dropped, \(after.messageCount - 1) stored; peak pending "
                + "\(peakCount) events, \(peakBytes / 1024) KiB")
        guard failing.writeErrorCount > 0, after.pendingEventCount == 0 else {
            throw BenchError.failed("failing: \(failing.writeErrorCount) write errors, \(after.pendingEventCount) pending")
        }
        let megabyte = 1024.0 * 1024.0
        return [
            Figure(
                name: "ingest.failing_peak_pending_mb", value: Double(peakBytes) / megabyte,
                baseline: Double(Self.bound) / megabyte, unit: "MiB",
                baselineDescription: "the configured maxPendingBytes", target: "≤ 1.0"),
            Figure(
                name: "ingest.failing_resume_ms", value: resumeMilliseconds, baseline: 5_000, unit: "ms",
                baselineDescription: "SQLite's busy timeout (5 s)", target: "≤ 2.0"),
        ]
    }
}

/// `BEGIN EXCLUSIVE` held by a `sqlite3` process until ``release()``.
private final class DatabaseLock {
    private let process = Process()
    private let input = Pipe()

    init(database: URL) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: FailingBenchmark.sqlite3)
        process.arguments = [database.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        // Wait until the lock is held: sqlite3 answers the SELECT only after BEGIN succeeded.
        var answer = Data()
        while !answer.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError.failed("sqlite3 ended before locking the database") }
            answer += chunk
        }
    }

    func release() throws {
        input.fileHandleForWriting.write(Data("COMMIT;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
