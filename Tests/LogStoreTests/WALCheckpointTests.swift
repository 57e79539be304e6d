import Foundation
import LogStore
import Synchronization
import Testing

/// The WAL is copied into the database by a thread of the writer's own while it logs, and still
/// starts over often enough to stay within its bound: the writer never finds every frame copied
/// when it begins a transaction under steady load, so the commit that reaches the bound copies
/// the rest itself (`WALCheckpointer`).
@Suite("WAL checkpoints in the background")
struct WALCheckpointTests {
    /// A 16 MB limit bounds the WAL at a sixteenth, 1 MB (244 pages of 4 KiB): a pass starts
    /// every 122 pages, the writer copies what is left at 244, and a transaction writes at most
    /// 1 MiB of events.
    static let sizeLimit: Int64 = 16_000_000
    static let walBound: Int64 = 1_000_000
    static let transactionBytes: Int64 = 1 << 20
    static let restartBytes: Int64 = 244 * 4096

    static var configuration: LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.sizeLimit = sizeLimit
        configuration.overflowPolicy = .waitForSpace
        return configuration
    }

    /// About 330 bytes a message: 12 MB for 36,000, twelve times the WAL's bound.
    static func log(_ count: Int, label: String, into store: LogStore) {
        let padding = String(repeating: "x", count: 280)
        for index in 0..<count {
            store.storeMessage(label: label, level: .info, message: "\(label) \(index) \(padding)")
        }
    }

    /// Between the two marks only the thread copies: the database file grows while the WAL has
    /// not reached the writer's own copy.
    @Test(.timeLimit(.minutes(TimeScale.minutes(2))))
    func theThreadCopiesTheWALBeforeTheWriterHasTo() async throws {
        try await withTemporaryStoreURL { url in
            // Created and closed first: the new schema's pages would fill the WAL on their own.
            try await LogStore(storeURL: url, options: [.create], configuration: Self.configuration).close()
            let store = try await LogStore(storeURL: url, options: [], configuration: Self.configuration)
            let watch = FileSizeWatch(url.appendingPathComponent("logs.sqlite-wal"))
            let database = url.appendingPathComponent("logs.sqlite")
            let sizeBefore = FileSizeWatch.size(of: database)
            try await watch.whileWatching {
                // A page each, some 160 pages in a few transactions: past the first mark, short of
                // the second.
                let text = String(repeating: "y", count: 3_000)
                for index in 0..<120 { store.storeMessage(label: "big", level: .info, message: "\(index) \(text)") }
                try await store.flush()
                let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(20))  // a bound, not a wait
                while FileSizeWatch.size(of: database) < sizeBefore + 400_000, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            try #require(watch.largest < Self.restartBytes, "the WAL reached the writer's mark: \(watch.largest) bytes")
            #expect(FileSizeWatch.size(of: database) >= sizeBefore + 400_000)
            try await store.close()
        }
    }

    @Test(.timeLimit(.minutes(TimeScale.minutes(2))))
    func theWALStaysWithinItsBoundWhileAWriterLogsWithoutPause() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create], configuration: Self.configuration)
            let watch = FileSizeWatch(url.appendingPathComponent("logs.sqlite-wal"))
            let database = url.appendingPathComponent("logs.sqlite")
            let sizeBefore = FileSizeWatch.size(of: database)
            try await watch.whileWatching {
                Self.log(36_000, label: "steady", into: store)
                try await store.flush()
            }
            // Copied while logging, not only by the close's checkpoint.
            #expect(FileSizeWatch.size(of: database) > sizeBefore + 8_000_000)
            // The bound, one transaction past it (its pages outnumber its bytes by the index's
            // and the tree's), and SQLite's WAL header.
            #expect(watch.largest <= Self.walBound + 2 * Self.transactionBytes, "WAL reached \(watch.largest) bytes")
            #expect(try await store.count(MessageQuery(labels: ["steady"])) == 36_000)
            try await store.close()
            #expect(FileSizeWatch.size(of: url.appendingPathComponent("logs.sqlite-wal")) == 0)
        }
    }

    @Test(.timeLimit(.minutes(TimeScale.minutes(3))))
    func aSecondProcessWritingTheStoreNeitherLosesRowsNorUnboundsTheWAL() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create], configuration: Self.configuration)
            let watch = FileSizeWatch(url.appendingPathComponent("logs.sqlite-wal"))
            try await watch.whileWatching {
                // The child logs 4,000 messages over 2 s through its own writer and checkpointer,
                // its reads and commits between this process's.
                async let child = SpawnedProcess.run(
                    testHelperExecutable, ["steady", url.path, "4000", "2000"], seconds: TimeScale.scaled(60))
                Self.log(36_000, label: "parent", into: store)
                try await store.flush()
                let report = try await child
                #expect(!report.timedOut && report.status == 0, "child: \(report.output)")
            }
            // Four times the one-process bound: a copy stops at the other process's read
            // snapshot, and a reader there keeps the WAL from starting over. Measured here: 4.1–
            // 5.7 MB, and 4.1–9.8 MB with SQLite's automatic checkpoint before; without the
            // writer's own copy at the bound, 25 MB.
            #expect(watch.largest <= 4 * (Self.walBound + 2 * Self.transactionBytes), "WAL reached \(watch.largest) bytes")
            #expect(try await store.count(MessageQuery(labels: ["parent"])) == 36_000)
            #expect(try await store.count(MessageQuery(labels: ["child"])) == 4_000)
            let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(check == "ok")
            try await store.close()
        }
    }

    /// In a process of its own, where the threads named `logstore-ckpt` are that store's alone
    /// (here every parallel test's store has one).
    @Test(.timeLimit(.minutes(TimeScale.minutes(3))))
    func storesOpenedAndClosedAgainAndAgainLeaveNoCheckpointThreadBehind() async throws {
        try await withTemporaryStoreURL { url in
            let report = try await SpawnedProcess.run(
                testHelperExecutable, ["reopen", url.path, "40"], seconds: TimeScale.scaled(150))
            try #require(!report.timedOut && report.status == 0, "child: \(report.output)")
            let figures = try Self.figures(report.output)
            #expect(figures["seen"] == 1)
            #expect(figures["left"] == 0)
            #expect(figures["messages"] == 40_000)
        }
    }

    /// The `key=value` fields of a helper's `result` line.
    static func figures(_ output: String) throws -> [String: Int] {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("result ") })
        return Dictionary(uniqueKeysWithValues: line.split(separator: " ").dropFirst().compactMap { field in
            let parts = field.split(separator: "=")
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
        })
    }
}

/// What a long reader held back is copied by the checkpoint thread once the reader lets go, not
/// by the writer's next commit, which every logging thread would wait for (a process of its own,
/// so its threads' write bytes are its store's alone).
@Suite("WAL checkpoints after a long reader")
struct WALBacklogTests {
    @Test(.timeLimit(.minutes(TimeScale.minutes(3))))
    func theThreadCopiesWhatALongReaderHeldBack() async throws {
        try await withTemporaryStoreURL { url in
            // 36,000 messages of some 330 bytes while the reader holds: a WAL of about 20 MB.
            let report = try await SpawnedProcess.run(
                testHelperExecutable, ["reader-backlog", url.path, "36000"], seconds: TimeScale.scaled(150))
            try #require(!report.timedOut && report.status == 0, "child: \(report.output)")
            let figures = try WALCheckpointTests.figures(report.output)
            let wal = try #require(figures["wal"])
            let writer = try #require(figures["writer"])
            let thread = try #require(figures["ckpt"])
            try #require(wal > 10_000_000, "the WAL held \(wal) bytes at the release")
            // After the release the writer logs about 1 MB and copies at most a few small rests
            // itself; before, its first commit copied the whole backlog (measured: 1.3 MB now,
            // 16.5 MB before, the thread 0.5 MB).
            #expect(writer < wal / 4, "the writer wrote \(writer) bytes of a \(wal)-byte backlog")
            // A page that many transactions changed is copied once: measured 9–13 MB of 17.
            #expect(thread >= wal / 3, "the checkpoint thread wrote \(thread) bytes of a \(wal)-byte backlog")
            let store = try await LogStore(storeURL: url, options: [])
            #expect(try await store.info().messageCount == 41_000)
            let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(check == "ok")
            try await store.close()
        }
    }
}
