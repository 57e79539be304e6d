import Foundation
import Glibc
import LogStore
import Synchronization
import Testing

/// Several processes open, log into, sweep, tail and close one store again and again, while the
/// `logstore` command line reads, sweeps and exports it beside them: after every round the
/// database is sound, every process finds exactly what it acknowledged, and no process ever held
/// a store file another one had deleted (`StressMode.swift` watches its own `/proc/self/fd`).
///
/// About half a minute on 2 cores; `LOGSTORE_STRESS_ROUNDS` runs more rounds (the crash trials'
/// way of running longer on demand), e.g. `LOGSTORE_STRESS_ROUNDS=40 swift test --filter MultiProcessStress`.
@Suite("Many processes on one store")
struct MultiProcessStressTests {
    static let rounds = ProcessInfo.processInfo.environment["LOGSTORE_STRESS_ROUNDS"].flatMap(Int.init) ?? 3
    static let cycles = 4
    static let messagesPerCycle = 1_500
    /// The helpers of a round: two writers, a writer that sweeps, a tailer.
    static let helpers: [(role: String, label: String)] = [
        ("writer", "w0"), ("writer", "w1"), ("sweeper", "s0"), ("tailer", "t0"),
    ]

    static var commandLine: URL { testHelperExecutable.deletingLastPathComponent().appendingPathComponent("logstore") }

    // Each helper and each command has its own bound; this one only catches the test itself.
    @Test(.timeLimit(.minutes(TimeScale.minutes(30))))
    func processesSharingAStoreLoseNothingAndDamageNothing() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.commandLine.path), "missing \(Self.commandLine.path)")
        try await withTemporaryDirectory { directory in
            let store = directory.appendingPathComponent("shared.logstore", isDirectory: true)
            try await withStore(at: store) { $0.storeMessage(label: "seed", level: .info, message: "seed") }
            var acknowledged: [String: (messages: Int, tasks: Int)] = [:]
            var cliRuns = 0
            for round in 0..<Self.rounds {
                let (reports, commands) = try await asHeavyTest { try await Self.runRound(store, directory: directory, round: round) }
                cliRuns += commands
                for ((_, label), report) in zip(Self.helpers, reports) {
                    #expect(!report.timedOut, "round \(round), \(label) hung: \(report.output)")
                    #expect(report.status == 0, "round \(round), \(label): \(report.output)")
                    let result = report.fields(of: "result")
                    #expect(result["deleted"] == "0", "round \(round), \(label): \(report.output)")
                    #expect(result["errors"] == "0", "round \(round), \(label): \(report.output)")
                    let messages = Int(result["messages"] ?? "") ?? 0
                    let tasks = Int(result["tasks"] ?? "") ?? 0
                    acknowledged[label, default: (0, 0)].messages += messages
                    acknowledged[label, default: (0, 0)].tasks += tasks
                }
                try await Self.check(store, acknowledged: acknowledged, round: round)
                #expect(deletedStoreFilesHeld(under: store).isEmpty, "round \(round): the test process")
            }
            #expect(cliRuns >= Self.rounds * 4)
            // Every old message went, by one sweep or another.
            try await withStore(at: store) { store in
                _ = try await store.sweep()
                #expect(try await store.count(MessageQuery(labels: ["s0-old"])) == 0)
            }
        }
    }

    /// One round: every helper at once, and the command line in a loop until they are done.
    /// Returns the helpers' reports (in ``helpers`` order) and how many commands ran.
    static func runRound(_ store: URL, directory: URL, round: Int) async throws -> ([SpawnedProcess], Int) {
        let running = RunningFlag()
        return try await withThrowingTaskGroup(of: ([SpawnedProcess]?, Int).self) { group in
            group.addTask {
                let reports = try await withThrowingTaskGroup(of: (Int, SpawnedProcess).self) { helpers in
                    for (index, helper) in Self.helpers.enumerated() {
                        helpers.addTask {
                            let arguments = [
                                "stress", store.path, helper.role, helper.label, String(cycles),
                                String(helper.role == "tailer" ? 0 : messagesPerCycle),
                            ]
                            return (index, try await SpawnedProcess.run(testHelperExecutable, arguments, seconds: 120))
                        }
                    }
                    var reports = [SpawnedProcess?](repeating: nil, count: Self.helpers.count)
                    for try await (index, report) in helpers { reports[index] = report }
                    return reports.compactMap { $0 }
                }
                running.finish()
                return (reports, 0)
            }
            group.addTask {
                var runs = 0
                repeat {
                    for command in commands(store, directory: directory, round: round, run: runs) {
                        let result = try await SpawnedProcess.run(commandLine, command, seconds: 60)
                        #expect(!result.timedOut && result.status == 0, "logstore \(command.joined(separator: " ")): \(result.output)")
                        runs += 1
                    }
                } while running.isRunning
                return (nil, runs)
            }
            var reports: [SpawnedProcess] = []
            var runs = 0
            for try await (helperReports, commandRuns) in group {
                if let helperReports { reports = helperReports }
                runs += commandRuns
            }
            return (reports, runs)
        }
    }

    /// The commands a user runs beside the app: read, search, sweep, export.
    static func commands(_ store: URL, directory: URL, round: Int, run: Int) -> [[String]] {
        let export = directory.appendingPathComponent("export-\(round)-\(run).ndjson").path
        return [
            ["info", store.path],
            ["messages", store.path, "--grep", "w0", "--limit", "5"],
            ["sweep", store.path],
            ["export", store.path, "-o", export, "--label", "w1"],
        ]
    }

    /// The store is sound and holds exactly what each process acknowledged.
    static func check(_ url: URL, acknowledged: [String: (messages: Int, tasks: Int)], round: Int) async throws {
        try await withStore(at: url, options: [.readonly]) { store in
            let integrity = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(integrity == "ok", "round \(round)")
            for (label, counts) in acknowledged where counts.messages > 0 {
                let rows = try await store.read { db in
                    try db.rows(
                        "SELECT count(*), count(DISTINCT json_extract(metadata, '$.seq')) FROM messages WHERE label_id = (SELECT id FROM labels WHERE name = ?)",
                        [.text(label)])
                }
                #expect(rows.first?[0].integer == Int64(counts.messages), "round \(round), \(label): messages")
                #expect(rows.first?[1].integer == Int64(counts.messages), "round \(round), \(label): distinct")
                let tasks = try await store.read { db in
                    try db.scalar("SELECT count(*) FROM tasks WHERE url LIKE ?", [.text("https://stress.example/\(label)/%")])?.integer
                }
                #expect(tasks == Int64(counts.tasks), "round \(round), \(label): tasks")
            }
            #expect(try await store.count(MessageQuery(labels: ["seed"])) == 1)
        }
    }
}

/// Whether a round's helpers still run: the command line loops until they are done.
private final class RunningFlag: Sendable {
    private let value = Atomic<Bool>(true)

    var isRunning: Bool { value.load(ordering: .acquiring) }

    func finish() { value.store(false, ordering: .releasing) }
}
