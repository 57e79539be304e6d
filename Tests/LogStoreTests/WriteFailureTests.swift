import Foundation
import Glibc
import Testing

// `@testable` only to lower `max_page_count` on the writer's own connection (`core.write`):
// SQLite then fails every commit with SQLITE_FULL, as a full disk would; no public API reaches
// the writer's connection, and a full disk cannot be made otherwise in a test.
@testable import LogStore

@Suite("Write failures")
struct WriteFailureTests {
    /// Caps the writer's database at its current size (`max_page_count` never goes below the
    /// page count), or lifts the cap.
    static func setFull(_ store: LogStore, _ isFull: Bool) async throws {
        try await store.core.write { writer in
            try writer.connection.execute("PRAGMA max_page_count = \(isFull ? 1 : 1_073_741_823)")
        }
    }

    @Test func failingCommitsKeepPendingEventsWithinTheBoundAndResume() async throws {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(20)
        configuration.maxPendingEvents = 2_000
        configuration.maxPendingBytes = 512 * 1024
        let bound = (events: configuration.maxPendingEvents, bytes: configuration.maxPendingBytes)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "disk", level: .info, message: "before")
            try await store.flush()
            try await Self.setFull(store, true)

            // Full load for a while: every commit fails meanwhile. At least 5,000 messages,
            // several times what the bound holds, however slow a loaded machine is.
            let text = String(repeating: "x", count: 300)
            var logged = 0
            var peak = (events: 0, bytes: 0)
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .milliseconds(1_200) || logged < 5_000 {
                for _ in 0..<1_000 {
                    store.storeMessage(label: "disk", level: .info, message: "\(logged) \(text)")
                    logged += 1
                }
                let info = try await store.info()
                peak = (max(peak.events, info.pendingEventCount), max(peak.bytes, info.pendingEventBytes))
            }
            let failing = try await store.info()
            #expect(failing.writeErrorCount > 0)
            #expect(failing.pendingEventCount > 0)
            #expect(peak.events <= bound.events)
            #expect(peak.bytes <= bound.bytes)
            #expect(failing.droppedEventCount > 0)

            // The disk has room again: what was kept commits, and logging goes on.
            try await Self.setFull(store, false)
            store.storeMessage(label: "disk", level: .info, message: "after")
            let flushed: Bool? = try await withinDeadline(seconds: 30) { try await store.flush(); return true }
            #expect(flushed != nil)
            let info = try await store.info()
            #expect(info.pendingEventCount == 0)
            #expect(info.pendingEventBytes == 0)
            let stored = try await allMessages(store, MessageQuery(labels: ["disk"])).map(\.text)
            #expect(stored.first == "before")
            #expect(stored.last == "after")
            // Only what the bound holds survived the failure; every other event is counted.
            let kept = stored.count - 2
            #expect(kept <= bound.events)
            #expect(kept + info.droppedEventCount == logged)
            let notices = try await allMessages(store, MessageQuery(labels: ["logstore"]))
            #expect(!notices.isEmpty)
        }
    }

    @Test func closingWhileCommitsFailGivesUpAndReportsTheFailure() async throws {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(20)
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, configuration: configuration)
            store.storeMessage(label: "disk", level: .info, message: "before")
            try await store.flush()
            try await Self.setFull(store, true)
            // More than the file's free pages can take: with commits as soon as the writer is
            // free, one 8 kB message sometimes fit in pages the index's work had freed, and
            // the close then had nothing failing to report.
            for _ in 0..<50 { store.storeMessage(label: "disk", level: .info, message: String(repeating: "x", count: 8_000)) }
            let closed: LogStoreError?? = try await withinDeadline(seconds: 30) { () async -> LogStoreError? in
                do {
                    try await store.close()
                    return nil
                } catch {
                    return error as? LogStoreError
                }
            }
            #expect(closed != nil, "close() hung while commits failed")
            #expect(closed??.kind == .writeFailed)
        }
    }

    @Test func anEventThatFailsOnItsOwnIsSetAsideAndTheRestCommits() async throws {
        let reported = Recorder<[LogStoreError]>([])
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(20)
        configuration.onWriteError = { error in reported.update { $0.append(error) } }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            // A value SQLite refuses (a URL longer than the connection's length limit) fails its
            // task's insert every time, and nothing else.
            try await store.core.write { writer in _ = writer.connection.setLengthLimit(4_096) }
            let events = store.subscribeEvents()
            let url = URL(string: "https://api.example.com/upload?q=" + String(repeating: "x", count: 8_000))
            store.storeMessage(label: "app", level: .info, message: "one")
            store.storeRequest(
                NetworkRequest(url: url, method: "GET"), response: NetworkResponse(url: url, statusCode: 200),
                error: nil, data: Data("{}".utf8))
            store.storeMessage(label: "app", level: .info, message: "two")
            // The first rounds retry the whole batch (the cause may clear); then the body is
            // found and set aside, and the rest commits.
            let flushed: Bool? = try await withinDeadline(seconds: 30) {
                while true {
                    do {
                        try await store.flush()
                        return true
                    } catch {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
            }
            #expect(flushed == true)

            #expect(try await allMessages(store, MessageQuery(labels: ["app"])).map(\.text) == ["one", "two"])
            let info = try await store.info()
            #expect(info.rejectedEventCount == 1)
            #expect(info.pendingEventCount == 0)
            #expect(info.lastWriteError != nil)
            // The whole-batch failure (once: the same failure round after round is reported
            // once), then the event set aside.
            #expect(reported.current.count >= 2)
            #expect(reported.current.allSatisfy { $0.kind == .writeFailed })

            // Not retried: later batches commit at once.
            store.storeMessage(label: "app", level: .info, message: "three")
            try await store.flush()
            #expect(try await store.info().rejectedEventCount == 1)
            #expect(try await allMessages(store, MessageQuery(labels: ["app"])).count == 3)

            // Subscribers see what was stored, not the event set aside.
            let published = try await collect(events, upTo: 3)
            #expect(published.compactMap { event -> String? in
                if case .messageStored(let message) = event { return message.message }
                return "task"
            } == ["one", "two", "three"])
        }
    }

    @Test func aBodyFileThatCannotBeDeletedIsCountedAndSweptLater() async throws {
        let reported = Recorder<[LogStoreError]>([])
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .seconds(600)
        configuration.isGroupCommitEnabled = false
        configuration.inlineBlobLimit = 1_024
        configuration.isBlobCompressionEnabled = false
        configuration.onWriteError = { error in reported.update { $0.append(error) } }
        try await withTemporaryStore(configuration: configuration) { store, url in
            var generator = SeededRandom(seed: 3)
            let body = Data((0..<8_192).map { _ in UInt8.random(in: 0...255, using: &generator) })
            store.storeRequest(
                NetworkRequest(url: URL(string: "https://api.example.com/file"), method: "GET"),
                response: NetworkResponse(url: URL(string: "https://api.example.com/file"), statusCode: 200),
                error: nil, data: body)
            try await store.flush()
            let blobs = url.appendingPathComponent("blobs")
            let names = try directoryListing(blobs).filter { $0.count == 40 }
            try #require(names.count == 1)
            let file = blobs.appendingPathComponent(names[0])

            // Root ignores permissions: a non-empty directory in the file's place cannot be unlinked.
            try FileManager.default.removeItem(at: file)
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            try Data("x".utf8).write(to: file.appendingPathComponent("inside"))
            try await store.removeAll()

            let info = try await store.info()
            #expect(info.blobDeletionFailureCount == 1)
            #expect(reported.current.map(\.kind) == [.fileSystem])

            // Deletable again (and old enough for the sweep's orphan scan): the sweep removes it.
            try FileManager.default.removeItem(at: file)
            try Data("orphan".utf8).write(to: file)
            var times = [timespec(tv_sec: 0, tv_nsec: 0), timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0)]
            times[0] = times[1]
            #expect(utimensat(AT_FDCWD, file.path, times, 0) == 0)
            let report = try await store.sweep()
            #expect(report.removedOrphanFiles == 1)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }
}
