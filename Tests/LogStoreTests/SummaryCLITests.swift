import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore summary`, run in-process on real temporary stores.
@Suite struct SummaryCLITests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    struct Run {
        var status: Int32
        var output: String
        var error: String
        var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    func logstore(_ arguments: String..., colours: Bool = false) async -> Run {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error,
            environment: CommandEnvironment(usesColors: colours, now: Self.now))
        return Run(status: status, output: output, error: error)
    }

    /// 60 messages, one a minute up to `now`: every fourth `db` (the rest `http`), levels
    /// cycling info, warning, error (so 20 errors: an error rate of 33.3 %).
    func makeStore(at url: URL) async throws {
        let store = try await LogStore(storeURL: url, options: [.create])
        let levels: [LogStore.Level] = [.info, .warning, .error]
        for index in 0..<60 {
            store.storeMessage(
                createdAt: Self.now.addingTimeInterval(Double(index - 59) * 60), label: index % 4 == 0 ? "db" : "http",
                level: levels[index % 3], message: "message \(index)")
        }
        try await store.flush()
        try await store.close()
    }

    @Test func printsCountsLabelsErrorRateAndAHistogram() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("summary", url.path, "--buckets", "6")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.first == "Messages:   60")
            #expect(run.output.contains("Error rate: 33.3 % (error and critical)"))
            #expect(run.lines.contains("  ERROR     20"))
            #expect(run.lines.contains("  TRACE      0"))
            let http = try #require(run.lines.firstIndex { $0.hasPrefix("  http") })
            let db = try #require(run.lines.firstIndex { $0.hasPrefix("  db") })
            #expect(http < db)
            #expect(run.lines[http].contains("45  75.0 %"))
            // Six rows, each ten messages: full-width bars, plain without colours.
            let rows = run.lines.filter { $0.hasPrefix("2025-") }
            #expect(rows.count == 6)
            #expect(rows.allSatisfy { $0.contains(String(repeating: "#", count: SummaryFormat.barWidth) + "  10") })
            #expect(!run.output.contains("\u{1B}["))
        }
    }

    @Test func colouredBarsAndAWindow() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("summary", url.path, "--since", "30m", "--label", "http", "--buckets", "3",
                                     colours: true)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("\u{1B}[33m█"))  // warnings' segment, in their colour
            #expect(run.output.contains("\u{1B}[1;31m█"))
            let rows = run.lines.filter { $0.contains("█") }
            #expect(rows.count == 3)
        }
    }

    @Test func jsonIsTheSummaryAsOneObject() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("summary", url.path, "--level", "warning", "--buckets", "4", "--json")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.filter { $0 == "\n" }.count == 1)
            let object = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
            #expect(object["total"] as? Int == 40)
            let levels = try #require(object["levels"] as? [String: Int])
            #expect(levels["warning"] == 20 && levels["info"] == 0)
            let histogram = try #require(object["histogram"] as? [[String: Any]])
            #expect(histogram.count == 4)
            // The oldest warning (the second message) starts it.
            #expect(histogram.first?["start"] as? String == "2025-06-15T14:08:40.000Z")
            let labels = try #require(object["labels"] as? [[String: Any]])
            #expect(labels.first?["label"] as? String == "http")
        }
    }

    @Test func anEmptyStoreSaysSo() async throws {
        try await withTemporaryStoreURL { url in
            try await LogStore(storeURL: url, options: [.create]).close()
            let run = await logstore("summary", url.path)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output == "No messages match.\n")
        }
    }

    @Test func badValuesAreUsageErrors() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            for arguments in [["--buckets", "0"], ["--buckets", "1001"], ["--buckets", "many"], ["--level", "loud"],
                              ["--since", "last tuesday"], ["--session", "nope"], ["--since", "1h", "--until", "2h"],
                              ["--limit", "5"]] {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(
                    ["summary", url.path] + arguments, output: &output, error: &error)
                #expect(status == 64, "\(arguments)")
                #expect(error.hasPrefix("logstore: "), "\(arguments): \(error)")
                #expect(output.isEmpty)
            }
            let missing = await logstore("summary", url.appendingPathComponent("none").path)
            #expect(missing.status == ExitStatus.notFound)
        }
    }
}
