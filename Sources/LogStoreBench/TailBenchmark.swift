import Foundation
import Glibc
import LogStore

/// `tail.latency_ms_p50` / `tail.latency_ms_p99`: from `storeMessage` in one process to the
/// live tail's yield in another. A child process (this executable, re-run with
/// ``writerFlag``) logs 10k messages at a steady 2k/s, each stamped with its send time
/// (`CLOCK_REALTIME`, shared by both processes); this process has the store open read-only and
/// tails it.
///
/// Baseline: the writer's `saveInterval` (300 ms). Any reader of another process's store sees
/// a message only once that process commits it; before group commit its writer batched for up
/// to that long, so the interval was the floor. With group commit (the default) the writer
/// commits as soon as it is free, and the target is issue 33's: p99 ≤ 150 ms (aim 50 ms).
struct TailBenchmark {
    let directory: URL
    static let writerFlag = "--tail-writer"
    static let count = 10_000
    static let perSecond = 2_000.0
    static let saveInterval: Duration = .milliseconds(300)

    func run() async throws -> [Figure] {
        let url = directory.appendingPathComponent("tail.logstore")
        try await LogStore(storeURL: url, options: [.create]).close()
        let store = try await LogStore(storeURL: url, options: [.readonly])
        let tail = try await store.tail()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = [Self.writerFlag, String(Self.count), String(Self.perSecond), url.path]
        try child.run()
        // A child that dies early must not leave the tail waiting for ever: closing ends it.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(Double(Self.count) / Self.perSecond + 30))
            try await store.close()
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(Self.count)
        for try await message in tail {
            let received = Self.realtimeNanoseconds()
            guard let sent = Int64(message.text) else { continue }
            latencies.append(Double(received - sent) / 1e6)
            if latencies.count == Self.count { break }
        }
        watchdog.cancel()
        child.waitUntilExit()
        try await store.close()
        try? FileManager.default.removeItem(at: url)
        guard latencies.count == Self.count, child.terminationStatus == 0 else {
            throw BenchError.failed("tail received \(latencies.count) of \(Self.count); writer exit \(child.terminationStatus)")
        }
        latencies.sort()
        func at(_ fraction: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))] }
        print(String(format: "tail: latency min %.1f ms, p50 %.1f ms, p99 %.1f ms, max %.1f ms", latencies[0], at(0.5), at(0.99), latencies[latencies.count - 1]))
        let description = "the writer's `saveInterval` (300 ms); ours: `storeMessage` in a child process, 10k messages at 2k/s, "
            + "to the yield of `tail()` on the store opened `.readonly` here (send time in the text, CLOCK_REALTIME)"
        return Figure.latencyPercentiles(
            "tail.latency_ms", sorted: latencies, saveInterval: Self.saveInterval / .milliseconds(1), description: description)
    }

    static func realtimeNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The child's side, when `arguments` start with ``writerFlag``: logs at a steady rate, each
    /// message's text its send time, closes the store; `nil` for an ordinary run.
    static func runWriterIfAsked(_ arguments: [String]) async -> Int32? {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = saveInterval
        return await PacedWriterChild.runIfAsked(
            arguments, flag: writerFlag, label: "tail", configuration: configuration)
    }
}
