import Foundation
import Glibc
import LogStore
import Testing

/// Damage met while the store is in use is reported as damage, once, and never turns into a
/// busy loop or a process that cannot exit.
@Suite("Damage reporting")
struct DamageReportingTests {
    /// The damage comes from outside: Python's sqlite3 module, or the sqlite3 shell (CI installs both).
    static let hasPython = isOnPath("python3")
    static let hasSQLiteShell = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")

    /// Damages the database given as its argument under an open writer, from another process:
    /// checkpoints everything into the file, overwrites every page after the first, then commits
    /// a change to page 1, so every connection's cache is dropped at its next transaction and
    /// the damaged pages are read afresh. (Opened by this script, not by the test process: a
    /// descriptor of the file closed in the test process would drop its SQLite locks.)
    static let damageScript = """
        import os, sqlite3, sys, time
        path = sys.argv[1]
        connection = sqlite3.connect(path, isolation_level=None, timeout=10)
        for _ in range(100):
            busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy == 0:
                break
            time.sleep(0.05)
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        pages = os.path.getsize(path) // page_size
        with open(path, "r+b") as file:
            for page in range(1, pages):
                file.seek(page * page_size)
                file.write(bytes([0xA5]) * page_size)
            file.flush()
            os.fsync(file.fileno())
        connection.execute(f"PRAGMA user_version = {version}")
        connection.close()
        """

    static func runDamagedWriter(ending: String) async throws -> SpawnedProcess {
        try await withTemporaryDirectory { directory in
            let script = directory.appendingPathComponent("damage.py")
            try Data(damageScript.utf8).write(to: script)
            let store = directory.appendingPathComponent("store", isDirectory: true)
            return try await SpawnedProcess.run(
                testHelperExecutable, ["damage", store.path, "20000", script.path, ending], seconds: 60)
        }
    }

    /// The writer meets the damage while the app keeps logging at full speed into a store whose
    /// policy is to wait for room: one report, every later event dropped and counted at once,
    /// the writer idle, and the close quick.
    @Test(.enabled(if: hasPython, "needs python3"))
    func aWriterThatMeetsDamageReportsItOnceAndStaysIdle() async throws {
        let child = try await Self.runDamagedWriter(ending: "close")
        #expect(!child.timedOut && child.status == 0, "\(child.output)")
        let result = child.fields(of: "result")
        #expect(result["damageReports"] == "1", "\(child.output)")
        #expect(result["lastKind"] == "writeFailed", "\(child.output)")
        #expect(result["flushFailed"] == "true", "\(child.output)")
        let loggedAfter = Int(result["loggedAfter"] ?? "") ?? 0
        #expect(loggedAfter > 1_000, "logging was held up: \(child.output)")
        #expect(result["info"] == "storeInvalid", "\(child.output)")
        // 2 s of logging: a writer retrying in a loop spends them all on its core.
        #expect((Int(result["writerCPUms"] ?? "") ?? .max) < 500, "\(child.output)")
        #expect((Int(result["closeMs"] ?? "") ?? .max) < 5_000, "\(child.output)")
    }

    /// The same, ending without `close()`: the exit drain does not wait for commits that can
    /// never happen.
    @Test(.enabled(if: hasPython, "needs python3"))
    func aProcessWhoseStoreIsDamagedStillExits() async throws {
        let started = ContinuousClock.now
        let child = try await Self.runDamagedWriter(ending: "exit")
        #expect(!child.timedOut && child.status == 0, "\(child.output)")
        #expect(child.fields(of: "result")["damageReports"] == "1", "\(child.output)")
        // A drain that waited for the commits would never end; a saturated CI run took 34 s.
        #expect(ContinuousClock.now - started < .seconds(TimeScale.scaled(90)))
    }

    /// A damaged full-text index fails searches as damage of the store, whatever the syntax;
    /// FTS5 syntax the caller got wrong stays the caller's invalid argument.
    @Test(.enabled(if: hasSQLiteShell, "needs the sqlite3 shell"))
    func aDamagedSearchIndexIsDamageNotABadQuery() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for index in 0..<50 { store.storeMessage(label: "app", level: .info, message: "hello \(index)") }
                try await store.flush()
                try await withinTimeLimit(seconds: 30) {
                    while try await store.info().unindexedMessageCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
                }
            }
            // The configuration row of the index's partition (a new store's first is number 2), as
            // a damaged page or another program could leave it (written by the sqlite3 shell: a
            // descriptor of the file must not be opened here).
            let damage = try await SpawnedProcess.run(
                URL(fileURLWithPath: "/usr/bin/sqlite3"),
                [url.appendingPathComponent("logs.sqlite").path, "UPDATE message_search_2_config SET v = 999 WHERE k = 'version'"],
                seconds: 30)
            try #require(damage.status == 0, "\(damage.output)")

            try await withStore(at: url, options: [.readonly]) { store in
                for search in [TextSearch.plain("hello"), .fts5("hello OR world")] {
                    await #expect(throws: LogStoreError.storeInvalid(url, reason: ""), "\(search)") {
                        try await store.messages(MessageQuery(text: search))
                    }
                }
                let refused = await #expect(throws: LogStoreError.self) {
                    try await store.messages(MessageQuery(text: .fts5("hello AND")))
                }
                #expect(refused?.kind == .invalidArgument, "\(String(describing: refused))")
            }
            let cli = await CLIRun.run(["messages", url.path, "--grep", "hello"], now: Date())
            #expect(cli.status != 0)
            #expect(cli.error.contains("full-text index is damaged"), "\(cli.error)")
        }
    }
}
