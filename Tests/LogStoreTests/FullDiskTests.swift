import Foundation
import Glibc
import LogStore
import Testing

/// A disk that really fills up or turns read-only: small `tmpfs` volumes (`Tmpfs`), no injected
/// failure. Logging never crashes or blocks; failures are reported and counted; once there is
/// room again ingestion resumes without any call; the store stays consistent and reopens.
/// Skips (saying so) where a tmpfs cannot be mounted.
@Suite("Full disk", .enabled(if: Tmpfs.isAvailable, "skipped: mounting a tmpfs needs root (mount -t tmpfs); the suite runs as root in CI"))
struct FullDiskTests {
    /// Commits often and bounds the buffer low, so a 4 MB volume fills, and the bound is
    /// reached, in well under a second.
    static func configuration(reporting reported: Recorder<Int>) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(20)
        configuration.maxPendingEvents = 2_000
        configuration.maxPendingBytes = 256 * 1024
        configuration.onWriteError = { _ in reported.update { $0 += 1 } }
        return configuration
    }

    static let url = URL(string: "https://example.com/upload")

    /// Logs `messages` messages and `tasks` tasks with incompressible bodies of `bodyBytes`, on a
    /// thread of its own (a full-speed producer; not the cooperative pool); returns the events.
    static func logBatch(_ store: LogStore, messages: Int, tasks: Int, bodyBytes: Int) async throws -> Int {
        try await onOwnThread {
            let text = String(repeating: "x", count: 300)
            for index in 0..<messages {
                store.storeMessage(label: "disk", level: .info, message: "\(index) \(text)")
            }
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<tasks {
                let body = Data((0..<bodyBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
                store.storeRequest(
                    NetworkRequest(url: url, method: "POST"), response: NetworkResponse(url: url, statusCode: 200),
                    error: nil, data: body)
            }
            return messages + tasks
        }
    }

    /// Polls `info()` until `condition` holds or `seconds` pass; the last info.
    static func info(
        of store: LogStore, within seconds: Double, until condition: (LogStore.Info) -> Bool
    ) async throws -> LogStore.Info {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var info = try await store.info()
        while !condition(info), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            info = try await store.info()
        }
        return info
    }

    @Test func aFullVolumeKeepsLoggingCountsDropsAndResumesWhenSpaceReturns() async throws {
        try await withTmpfs(size: "4m") { volume in
            // Room taken first, given back later: the only way a full volume gets space again.
            // More than the store gets, so the checkpoint at close (which copies the WAL into
            // the database file) has room once the filler is gone.
            let filler = volume.appendingPathComponent("filler")
            try writeFiller(filler, bytes: 2_560 * 1024)
            let url = volume.appendingPathComponent("test.logstore", isDirectory: true)
            let reported = Recorder(0)
            let configuration = Self.configuration(reporting: reported)
            var logged = 0
            var stored = 0
            try await withStore(at: url, configuration: configuration) { store in
                store.storeMessage(label: "disk", level: .info, message: "before")
                try await store.flush()

                // Fill until commits fail and the buffer overflows; every call returns.
                var peak = (events: 0, bytes: 0)
                var info = try await store.info()
                let deadline = ContinuousClock.now + .seconds(20)
                while info.writeErrorCount == 0 || info.droppedEventCount == 0, ContinuousClock.now < deadline {
                    logged += try await Self.logBatch(store, messages: 300, tasks: 10, bodyBytes: 4 * 1024)
                    info = try await store.info()
                    peak = (max(peak.events, info.pendingEventCount), max(peak.bytes, info.pendingEventBytes))
                }
                #expect(info.writeErrorCount > 0)
                #expect(info.lastWriteError != nil)
                #expect(reported.current > 0)
                #expect(info.droppedEventCount > 0)
                #expect(peak.events <= configuration.maxPendingEvents)
                #expect(peak.bytes <= configuration.maxPendingBytes)

                // Space returns: no call is needed for what was kept to commit, nor what follows.
                try FileManager.default.removeItem(at: filler)
                store.storeMessage(label: "disk", level: .info, message: "after")
                info = try await Self.info(of: store, within: 30) { $0.pendingEventCount == 0 }
                #expect(info.pendingEventCount == 0)
                let messages = try await allMessages(store, MessageQuery(labels: ["disk"])).map(\.text)
                #expect(messages.first == "before")
                #expect(messages.last == "after")
                // Every event logged is stored, dropped (and counted) or set aside (and counted).
                stored = messages.count + info.taskCount
                #expect(stored + info.droppedEventCount + info.rejectedEventCount == logged + 2)
            }
            #expect(try integrityCheck(url) == "ok")
            try await withStore(at: url, options: [.readonly]) { store in
                let info = try await store.info()
                #expect(try await allMessages(store, MessageQuery(labels: ["disk"])).count + info.taskCount == stored)
            }
        }
    }
}
