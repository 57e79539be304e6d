import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore messages`: filters, pages and their cursors, JSON and human lines, bad values.
/// (Its search: MessageSearchCLITests.)
@Suite struct MessagesCLITests: CLITestCase {
    @Test func messagesFilterByLevel() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let run = await logstore("messages", url.path, "--level", "warning", "--json")
            #expect(run.status == 0)
            let levels = try run.lines.map { try jsonObject($0)["level"] as? String }
            #expect(levels.count == (0..<30).filter { $0 % 7 >= 4 }.count)
            #expect(levels.allSatisfy { ["warning", "error", "critical"].contains($0 ?? "") })
            // The form the page's links document means the same (one parser: Level.range(parsing:)).
            let plus = await logstore("messages", url.path, "--level", "warning+", "--json")
            #expect(plus.status == 0 && plus.lines == run.lines)

            let range = await logstore("messages", url.path, "--level", "info...error", "--json")
            let rangeLevels = try range.lines.map { try jsonObject($0)["level"] as? String ?? "" }
            #expect(Set(rangeLevels) == ["info", "notice", "warning", "error"])
        }
    }

    @Test func messagesFilterByLabelAndTime() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let db = await logstore("messages", url.path, "--label", "db", "--json")
            let labels = try db.lines.map { try jsonObject($0)["label"] as? String }
            #expect(labels.count == 10)
            #expect(labels.allSatisfy { $0 == "db" })

            // One message a minute up to `now`: the last 10 minutes hold 11 (both ends included).
            let recent = await logstore("messages", url.path, "--since", "10m", "--json")
            #expect(recent.lines.count == 11)
            let iso = await logstore("messages", url.path, "--until", "2025-06-15T15:00:00Z", "--json")
            #expect(iso.status == 0)
        }
    }

    @Test func messagesPagesContinueWithTheCursor() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            var seen: [String] = []
            var arguments = ["messages", url.path, "--limit", "12", "--oldest-first"]
            for _ in 0..<5 {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(
                    arguments, output: &output, error: &error, environment: CommandEnvironment(now: CLIFixtures.now))
                #expect(status == 0)
                let lines = output.split(separator: "\n").map(String.init)
                let messages = lines.filter { !$0.hasPrefix("-- more:") }
                seen += messages
                guard let more = lines.last, more.hasPrefix("-- more:") else { break }
                let words = more.split(separator: " ").map(String.init)
                let cursor = try #require(words.last)
                #expect(words.contains("--oldest-first"))
                arguments = ["messages", url.path, "--limit", "12", "--oldest-first", "--cursor", cursor]
            }
            #expect(seen.count == 30)
            #expect(seen.first?.contains("message 0\\nsecond line") == true)
            #expect(seen.last?.contains("message 29") == true)
            #expect(Set(seen).count == 30)
        }
    }

    @Test func messagesWithoutMorePagesPrintNoCursor() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "30")
            #expect(run.lines.count == 30)
            #expect(!run.output.contains("--cursor"))
        }
    }

    @Test func messagesJSONIsOneObjectPerLine() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "5", "--json")
            #expect(run.status == 0)
            #expect(run.lines.count == 5)
            // Piped (as here), the next page's hint stays off the terminal (TaskPickingCLITests).
            #expect(run.error.isEmpty)
            for line in run.lines {
                let object = try jsonObject(line)
                for key in ["id", "time", "level", "label", "text", "metadata", "file", "function", "line",
                            "threadID", "threadName", "session"] {
                    #expect(object.keys.contains(key), "missing \(key)")
                }
                #expect((object["text"] as? String)?.contains("\nsecond line") == true)
                let metadata = try #require(object["metadata"] as? [String: Any])
                #expect(metadata["nested"] is [String: Any])
            }
        }
    }

    @Test func messagesHumanLinesAreSingleAndUncolouredByDefault() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "1")
            let line = try #require(run.lines.first)
            #expect(line == "2025-06-15T15:06:40.000Z DEBUG    http message 29\\nsecond line  index=29 nested={tags=[a,\"b c\"]}")
            #expect(!run.output.contains("\u{1B}"))

            var output = ""
            var error = ""
            _ = await LogStoreCommand.run(
                ["messages", url.path, "--limit", "1"], output: &output, error: &error,
                environment: CommandEnvironment(usesColors: true, now: CLIFixtures.now))
            #expect(output.contains("\u{1B}["))
        }
    }

    @Test func messagesRejectBadValues() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            for arguments in [
                ["--level", "loud"], ["--level", "error...info"], ["--since", "last tuesday"], ["--limit", "0"],
                ["--cursor", "x"], ["--session", "not-a-uuid"],
            ] {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(
                    ["messages", url.path] + arguments, output: &output, error: &error)
                #expect(status == 64, "\(arguments)")
                #expect(error.contains("--\(arguments[0].dropFirst(2))"))
            }
        }
    }

    @Test func levelsParseAsThresholdsAndRanges() throws {
        #expect(try ValueParsers.levels("warning") == .warning ... .critical)
        #expect(try ValueParsers.levels("WARN") == .warning ... .critical)
        #expect(try ValueParsers.levels("info...error") == .info ... .error)
        #expect(throws: UsageError.self) { try ValueParsers.levels("error...info") }
        #expect(throws: UsageError.self) { try ValueParsers.levels("info..") }
    }

    @Test func theContinuationReplacesTheCursor() {
        let line = MessagesCommand.continuation(
            ["my store", "--cursor", "m9", "--level", "warning", "--cursor=m8"], cursor: MessageQuery.Cursor(lastID: 5))
        #expect(line == "logstore messages 'my store' --level warning --cursor m5")
    }
}
