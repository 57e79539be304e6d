import Foundation
import Glibc
import LogStore
import Testing

/// A process killed with SIGKILL at a random moment — while logging messages and bodies, during
/// a sweep, during an export — leaves a consistent store that keeps every message a completed
/// `flush()` acknowledged, or, in a `.synchronous` store, every message whose logging call
/// returned. The child is `LogStoreTestHelper crash-…` (CrashMode.swift).
/// `LOGSTORE_CRASH_TRIALS` sets the trials of the logging variant (20 by default; the others run
/// a quarter of them), `LOGSTORE_CRASH_SEED` repeats a run's kill delays.
@Suite("Crash consistency")
struct CrashConsistencyTests {
    static var helper: URL { testHelperExecutable }

    static let trials = ProcessInfo.processInfo.environment["LOGSTORE_CRASH_TRIALS"].flatMap { Int($0) } ?? 20

    static let seed = ProcessInfo.processInfo.environment["LOGSTORE_CRASH_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 0...UInt64.max)

    @Test func killedWhileLoggingKeepsEveryAcknowledgedMessage() async throws {
        try await runTrials(mode: "crash-log", count: Self.trials)
    }

    /// A `.synchronous` store acknowledges each logging call by returning: every message whose
    /// call returned before the kill is there, with no `flush()` involved.
    @Test func killedWhileLoggingSynchronouslyKeepsEveryReturnedMessage() async throws {
        try await runTrials(mode: "crash-sync", count: max(1, Self.trials / 4))
    }

    @Test func killedDuringASweepKeepsEveryAcknowledgedMessage() async throws {
        try await runTrials(mode: "crash-sweep", count: max(1, Self.trials / 4))
    }

    /// Partitions of the search index dropped whole by sweeps (schema 11): a kill at any moment
    /// leaves every listed partition whole and searches that find exactly the rows there are.
    @Test func killedWhileDroppingIndexPartitionsKeepsSearchesExact() async throws {
        try await runTrials(mode: "crash-partitions", count: max(1, Self.trials / 4))
    }

    /// The writer's idle merges of the index's segments (FTS5 `merge`, one transaction a step):
    /// a kill among them leaves searches that find exactly the rows there are.
    @Test func killedWhileMergingTheIndexKeepsSearchesExact() async throws {
        try await runTrials(mode: "crash-merges", count: max(1, Self.trials / 4))
    }

    @Test func killedDuringAnExportLeavesNoHalfArchive() async throws {
        try await runTrials(mode: "crash-export", count: max(1, Self.trials / 4))
    }

    private func runTrials(mode: String, count: Int) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "missing \(Self.helper.path)")
        var random = SeededRandom(seed: Self.seed ^ UInt64(mode.utf8.count))
        var interrupted = 0
        var acknowledged = 0
        for trial in 0..<count {
            // The child acknowledges crash-merges' messages at its last commit, and the writer
            // merges from a second after it: those kills come 0.95–1.4 s after it.
            let delay = Int.random(in: 50...500, using: &random) + (mode == "crash-merges" ? 900 : 0)
            // One trial at a time among the heavy tests: its kill delays are about time.
            let outcome = try await asHeavyTest { try await withTemporaryDirectory { directory in
                try await runTrial(mode: mode, directory: directory, killDelay: delay, trial: trial)
            } }
            if outcome.inProgress { interrupted += 1 }
            acknowledged += outcome.acknowledged
        }
        // The figures of RELIABILITY.md.
        print("""
            crash consistency \(mode): \(count) trials (seed \(Self.seed)), \(acknowledged) acknowledged messages \
            checked, \(interrupted) kills during a sweep or export (for merges: with a sealed partition not yet one segment)
            """)
    }

    /// One child run, killed `killDelay` ms after its first acknowledgement, then the checks.
    /// Returns whether a sweep or export was under way at the kill, and how many messages were acknowledged.
    private func runTrial(
        mode: String, directory: URL, killDelay: Int, trial: Int
    ) async throws -> (inProgress: Bool, acknowledged: Int) {
        let store = directory.appendingPathComponent("crash.logstore", isDirectory: true)
        let exports = directory.appendingPathComponent("exports", isDirectory: true)
        try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
        let arguments = [mode, store.path, "100000000", "20"] + (mode == "crash-export" ? [exports.path] : [])
        let lines = try await onOwnThread {
            try runAndKill(arguments: arguments, after: "ack ", delayMilliseconds: killDelay, giveUpSeconds: 20)
        }
        let context = Comment(rawValue: "\(mode) trial \(trial), seed \(Self.seed), kill after \(killDelay) ms")
        let acknowledged = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max()
        let last = try #require(acknowledged, context)
        let started = lines.last { $0.hasPrefix("sweep ") || $0.hasPrefix("export ") }
        let ended = lines.last { $0.hasPrefix("swept ") || $0.hasPrefix("exported ") }
        var inProgress = started.map { $0.split(separator: " ").last } != ended.map { $0.split(separator: " ").last }
        if mode == "crash-merges" { inProgress = try await mergesWereUnfinished(at: store) }

        try await checkKilledStore(at: store, lastAcknowledged: last, context)
        if mode == "crash-export" { try await checkExports(in: exports, of: store, context) }
        if mode == "crash-partitions" || mode == "crash-merges" { try await checkSearches(at: store, context) }
        return (inProgress, last + 1)
    }

    /// Whether a sealed partition of the index was still more than one segment at the kill (the
    /// writer's merges had not finished): read before anything opens the store read-write.
    private func mergesWereUnfinished(at url: URL) async throws -> Bool {
        try await withStore(at: url, options: [.readonly]) { store in
            try await store.read { db in
                try db.rows("SELECT name FROM search_partitions WHERE last_id IS NOT NULL").compactMap { $0[0].text }
                    .contains { table in try db.scalar("SELECT count(DISTINCT segid) FROM \(table)_idx")?.integer ?? 0 > 1 }
            }
        }
    }

    /// Read-only first (nothing repaired yet): integrity, acknowledged messages, every blob whole.
    /// Then read-write and one sweep: no orphan file, counts that match the rows.
    private func checkKilledStore(at url: URL, lastAcknowledged: Int, _ context: Comment) async throws {
        let blobsDirectory = url.appendingPathComponent("blobs")
        try await withStore(at: url, options: [.readonly]) { store in
            let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(check == "ok", context)
            let indices = try await store.read { db in
                try db.rows("SELECT text FROM message_rows WHERE label = 'crash'").compactMap {
                    $0[0].text.flatMap { Int($0.dropFirst("crash ".count)) }
                }
            }
            let missing = Set(0...lastAcknowledged).subtracting(indices)
            #expect(missing.isEmpty, "\(missing.count) acknowledged messages lost, \(context)")
            let rows = try await store.read { db in
                try db.rows("SELECT lower(hex(key)), data IS NULL FROM blobs").map { ($0[0].text ?? "", $0[1].integer == 1) }
            }
            for (key, isFile) in rows {
                if isFile {
                    #expect(FileManager.default.fileExists(atPath: blobsDirectory.appendingPathComponent(key).path), context)
                }
                // Decompresses, has its recorded size and hashes to its key (checked by blobData).
                let data = try await store.blobData(forKey: key)
                #expect(data != nil, context)
            }
        }
        try await withStore(at: url, options: []) { store in
            _ = try await store.sweep()
            let fileKeys = try await store.read { db in
                try db.rows("SELECT lower(hex(key)) FROM blobs WHERE data IS NULL").compactMap { $0[0].text }
            }
            let files = (try? directoryListing(blobsDirectory)) ?? []
            #expect(Set(files) == Set(fileKeys), "orphan or missing blob files, \(context)")
            let counts = try await store.read { db in
                // Logged messages only: info() does not count the technical message of each task.
                try ["messages WHERE task_id IS NULL", "tasks", "blobs"].map {
                    try db.scalar("SELECT count(*) FROM \($0)")?.integer ?? -1
                }
            }
            let info = try await store.info()
            #expect([info.messageCount, info.taskCount, info.blobCount].map(Int64.init) == counts, context)
            let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(check == "ok", context)
        }
    }

    /// Searches find exactly the rows the table holds, for kept and for swept words, once the
    /// index has caught up; every listed partition is a whole table.
    private func checkSearches(at url: URL, _ context: Comment) async throws {
        try await withStore(at: url, options: []) { store in
            try await withinTimeLimit(seconds: 60) {
                while try await store.info().unindexedMessageCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
            for word in ["crash", "stale"] {
                let rows = try await store.read { db in
                    try db.scalar("SELECT count(*) FROM messages WHERE text LIKE ?", [.text(word + " %")])?.integer ?? -1
                }
                #expect(Int64(try await store.count(MessageQuery(text: .plain(word)))) == rows, "\(word), \(context)")
            }
            let partitions = try await store.read { db in
                try db.rows("SELECT name FROM search_partitions").compactMap { $0[0].text }
            }
            for table in partitions {
                let check = try await store.read { db in
                    try db.scalar("SELECT count(*) FROM \(table)_data")?.integer
                }
                #expect(check != nil, "\(table), \(context)")
            }
        }
    }

    /// Every archive at a target name is whole (it opens, which checks it); anything else is one of the
    /// export's hidden temporary files, which a killed process cannot remove. The next export into
    /// the directory removes them: afterwards only whole archives are left.
    private func checkExports(in directory: URL, of store: URL, _ context: Comment) async throws {
        for name in try directoryListing(directory) {
            if name.hasPrefix(".") {
                // SQLite's own journal files of the database copy count with it.
                var base = Substring(name)
                for suffix in ["-journal", "-wal", "-shm"] where base.hasSuffix(suffix) { base = base.dropLast(suffix.count) }
                let isTemporary = [".logstore-partial", ".logstore-new", ".logstore-database", ".logstore-whole"]
                    .contains { base.hasSuffix($0) }
                #expect(name.hasPrefix(".export-") && isTemporary, "unexpected \(name), \(context)")
                continue
            }
            #expect(name.hasPrefix("export-") && name.hasSuffix(".lsarchive"), "unexpected \(name), \(context)")
            let archive = try await LogStore(archiveURL: directory.appendingPathComponent(name))
            let check = try await archive.read { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(check == "ok", context)
            try await archive.close()
        }
        try await withStore(at: store, options: [.readonly]) { store in
            _ = try await store.export(to: directory.appendingPathComponent("after-the-kill.lsarchive"))
        }
        // A kill in the instant between creating the output and locking it leaves a `new` file,
        // which the cleanup leaves for a minute (it cannot tell it from one being locked now).
        let left = try directoryListing(directory).filter { $0.hasPrefix(".") && !$0.hasSuffix(".logstore-new") }
        #expect(left.isEmpty, "left after the next export: \(left), \(context)")
    }
}
