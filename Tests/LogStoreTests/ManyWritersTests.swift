import Dispatch
import Foundation
import Glibc
import LogStore
import Testing

/// Three processes log into one store at once, each its own writer and session (WAL and the
/// busy timeout arbitrate), one of them sweeping every 20 ms while the others insert. Real
/// child processes (`LogStoreTestHelper writers`, WritersMode.swift), waited for off the
/// cooperative pool and killed past their bound.
@Suite("Many writers")
struct ManyWritersTests {
    static let processes = 3
    static let messagesPerProcess = 20_000
    /// Old messages logged before the writers start: the first sweep deletes them while the
    /// other processes insert.
    static let seeded = 3_000

    /// What one child printed and how it ended.
    struct ChildReport: Sendable {
        var status: Int32
        var output: String

        /// The `key=value` fields of its `result` line.
        var fields: [String: String] {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("result ") }) else { return [:] }
            var fields: [String: String] = [:]
            for pair in line.dropFirst("result ".count).split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            return fields
        }

        func int(_ key: String) -> Int? { fields[key].flatMap { Int($0) } }
    }

    @Test func threeProcessesLoseNothingAndSurfaceNoBusyError() async throws {
        try await asHeavyTest {
            let helper = ExitDrainTests.helper
            try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
            try await withTemporaryStoreURL { url in
                try await withStore(at: url) { store in
                    let old = Date().addingTimeInterval(-30 * 86_400)
                    for index in 0..<Self.seeded {
                        store.storeMessage(createdAt: old, label: "seed", level: .info, message: "seed \(index)")
                    }
                    try await store.flush()
                }

                let labels = (0..<Self.processes).map { "w\($0)" }
                let reports = try await withThrowingTaskGroup(of: (Int, ChildReport).self) { group in
                    for (index, label) in labels.enumerated() {
                        var arguments = ["writers", url.path, String(Self.messagesPerProcess), label]
                        if index == 0 { arguments.append("20") }
                        group.addTask { (index, try await Self.run(helper, arguments, seconds: 60)) }
                    }
                    var reports = [ChildReport?](repeating: nil, count: labels.count)
                    for try await (index, report) in group { reports[index] = report }
                    return reports.compactMap { $0 }
                }
                try #require(reports.count == labels.count)

                for (label, report) in zip(labels, reports) {
                    #expect(report.status == 0, "\(label): \(report.output)")
                    #expect(!report.output.contains("error:"), "\(label): \(report.output)")
                    #expect(!report.output.localizedCaseInsensitiveContains("busy"), "\(label): \(report.output)")
                    #expect(report.int("logged") == Self.messagesPerProcess, "\(label): \(report.output)")
                    #expect(report.int("writeErrors") == 0, "\(label): \(report.output)")
                    #expect(report.int("dropped") == 0, "\(label): \(report.output)")
                    #expect(report.int("rejected") == 0, "\(label): \(report.output)")
                }
                let sweeper = reports[0]
                let oldLogged = try #require(sweeper.int("old"))
                #expect((sweeper.int("sweeps") ?? 0) >= 2)
                // Every old message, seeded or logged meanwhile, was deleted exactly once.
                #expect(sweeper.int("removed") == Self.seeded + oldLogged)

                try await withStore(at: url, options: [.readonly]) { store in
                    try await Self.checkRows(store, labels: labels)
                    let sessions = Set(try await store.sessions().map(\.id))
                    for (label, report) in zip(labels, reports) {
                        let session = try #require(report.fields["session"].flatMap(UUID.init(uuidString:)), "\(label)")
                        #expect(sessions.contains(session), "\(label)'s session")
                    }
                }
            }
        }
    }

    /// Every process's messages once each, the old ones gone, the kept counts equal to the rows
    /// (through `info()`, `count` and SQL), and a sound database file.
    static func checkRows(_ store: LogStore, labels: [String]) async throws {
        let perLabel = try await store.read { db in
            try db.rows("""
                SELECT label, count(*), count(DISTINCT json_extract(metadata, '$.seq')),
                       min(CAST(json_extract(metadata, '$.seq') AS INTEGER)),
                       max(CAST(json_extract(metadata, '$.seq') AS INTEGER)),
                       sum(text <> label || ' ' || json_extract(metadata, '$.seq'))
                FROM message_rows WHERE task_id IS NULL GROUP BY label
                """)
        }
        var byLabel: [String: [Int64]] = [:]
        for row in perLabel {
            guard case .text(let label) = row[0] else { continue }
            byLabel[label] = (1...5).map { row[$0].integer ?? -1 }
        }
        let n = Int64(messagesPerProcess)
        for label in labels {
            // count, distinct sequence numbers, first, last, texts not matching their sequence.
            #expect(byLabel[label] == [n, n, 0, n - 1, 0], "\(label): \(byLabel[label] ?? [])")
        }
        #expect(byLabel["seed"] == nil)
        #expect(byLabel["w0-old"] == nil)

        let levelRows = try await store.read { db in
            try db.rows("SELECT level, count(*) FROM messages WHERE task_id IS NULL GROUP BY level")
        }
        let keptRows = try await store.read { db in
            try db.rows("SELECT level, sum(count) FROM message_counts GROUP BY level")
        }
        func table(_ rows: [DatabaseRow]) -> [Int64: Int64] {
            Dictionary(uniqueKeysWithValues: rows.map { ($0[0].integer ?? -1, $0[1].integer ?? -1) })
        }
        let counted = table(levelRows)
        #expect(table(keptRows) == counted)
        for level in LogStore.Level.allCases {
            let expected = Int(counted[Int64(level.rawValue)] ?? 0)
            #expect(try await store.count(MessageQuery(levels: level ... level)) == expected, "\(level)")
        }
        #expect(try await store.info().messageCount == Int(counted.values.reduce(0, +)))
        #expect(Int(counted.values.reduce(0, +)) >= labels.count * messagesPerProcess)
        let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
        #expect(check == "ok")
    }

    /// Runs the helper to its end at the lowest priority, on a thread of its own, reading its output; killed after
    /// `seconds`, so a stuck writer fails the test instead of hanging the suite.
    static func run(_ helper: URL, _ arguments: [String], seconds: Double) async throws -> ChildReport {
        // At the lowest priority (`nice` execs it, so the pid stays the helper's): three
        // writers at full speed would otherwise take the cores from the rest of the suite.
        let run = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/usr/bin/nice"), ["-n", "19", helper.path] + arguments, seconds: seconds)
        return ChildReport(status: run.status, output: run.output)
    }
}
