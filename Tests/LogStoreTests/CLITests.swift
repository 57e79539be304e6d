import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// The `logstore` command, run in-process on real temporary stores.
@Suite struct CLITests {
    struct Run {
        var status: Int32
        var output: String
        var error: String

        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func logstore(_ arguments: String..., now: Date = CLITests.now) async -> Run {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(now: now))
        return Run(status: status, output: output, error: error)
    }

    /// A store with 30 known messages: labels `db` (every third) and `http`, levels cycling
    /// trace…critical, one a minute up to `now`.
    func makeStore(at url: URL) async throws {
        let store = try await LogStore(storeURL: url, options: [.create])
        for index in 0..<30 {
            store.storeMessage(
                createdAt: Self.now.addingTimeInterval(Double(index - 29) * 60),
                label: index % 3 == 0 ? "db" : "http",
                level: LogStore.Level(rawValue: Int16(index % 7))!,
                message: "message \(index)\nsecond line",
                metadata: ["index": .string("\(index)"), "nested": ["tags": ["a", "b c"]]])
        }
        try await store.flush()
        try await store.close()
    }

    func jsonObject(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    // MARK: demo

    @Test func demoWritesTheRequestedMessages() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore("demo", url.path, "--count", "500", "--sessions", "2", "--seed", "7")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("500 messages in 2 sessions"))
            #expect(run.output.contains("logstore info \(url.path)"))
            #expect(run.output.contains("--level warning --limit 20"))
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let info = try await store.info()
            try await store.close()
            #expect(info.messageCount == 500)
            #expect(info.sessionCount == 2)
            #expect(info.droppedEventCount == 0)
        }
    }

    @Test func demoRefusesANonEmptyStoreWithoutAppend() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "50").status == 0)
            let refused = await logstore("demo", url.path, "--count", "50")
            #expect(refused.status == 1)
            #expect(refused.error.contains("--append"))
            let appended = await logstore("demo", url.path, "--count", "50", "--append", "--sessions", "1")
            #expect(appended.status == 0, "\(appended.error)")
            let info = await logstore("info", url.path, "--json")
            let object = try jsonObject(info.output)
            #expect(object["messageCount"] as? Int == 100)
        }
    }

    @Test func demoTimesIncreaseAndEndByNow() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "2000", "--sessions", "3", "--seed", "1").status == 0)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let page = try await store.messages(MessageQuery(order: .oldestFirst, limit: 5000))
            try await store.close()
            let times = page.messages.map(\.createdAt)
            #expect(times.count == 2000)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
            #expect(times.last! <= CLITests.now)
            #expect(times.first! >= CLITests.now.addingTimeInterval(-3 * 3600))
            #expect(Set(page.messages.map(\.label)).count >= 15)
            #expect(page.messages.contains { !$0.metadata.isEmpty })
        }
    }

    // MARK: info

    @Test func infoJSONHasTheRequiredKeys() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("info", url.path, "--json")
            #expect(run.status == 0, "\(run.error)")
            let object = try jsonObject(run.output)
            for key in ["messageCount", "taskCount", "blobCount", "totalStoreSize", "droppedEventCount"] {
                #expect(object[key] != nil, "missing \(key)")
            }
            #expect(object["messageCount"] as? Int == 30)
            let created = try #require(object["creationDate"] as? String)
            #expect(ValueParsers.isoDate(created) != nil)
        }
    }

    @Test func infoPrintsAlignedFields() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("info", url.path)
            #expect(run.status == 0)
            #expect(run.lines.contains { $0.hasPrefix("Messages:") && $0.hasSuffix(" 30") })
            // Every value starts in the same column.
            let valueColumns = Set(run.lines.map { line -> Int in
                let afterKey = line.range(of: ": ")!.upperBound
                return line.distance(from: line.startIndex, to: line[afterKey...].firstIndex { $0 != " " }!)
            })
            #expect(valueColumns.count == 1)
        }
    }

    // MARK: messages

    @Test func messagesFilterByLevel() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--level", "warning", "--json")
            #expect(run.status == 0)
            let levels = try run.lines.map { try jsonObject($0)["level"] as? String }
            #expect(levels.count == (0..<30).filter { $0 % 7 >= 4 }.count)
            #expect(levels.allSatisfy { ["warning", "error", "critical"].contains($0 ?? "") })

            let range = await logstore("messages", url.path, "--level", "info...error", "--json")
            let rangeLevels = try range.lines.map { try jsonObject($0)["level"] as? String ?? "" }
            #expect(Set(rangeLevels) == ["info", "notice", "warning", "error"])
        }
    }

    @Test func messagesFilterByLabelAndTime() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
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
            try await makeStore(at: url)
            var seen: [String] = []
            var arguments = ["messages", url.path, "--limit", "12", "--oldest-first"]
            for _ in 0..<5 {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(
                    arguments, output: &output, error: &error, environment: CommandEnvironment(now: Self.now))
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
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "30")
            #expect(run.lines.count == 30)
            #expect(!run.output.contains("--cursor"))
        }
    }

    @Test func messagesJSONIsOneObjectPerLine() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "5", "--json")
            #expect(run.status == 0)
            #expect(run.lines.count == 5)
            #expect(run.error.contains("--cursor m"))
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
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "1")
            let line = try #require(run.lines.first)
            #expect(line == "2025-06-15T15:06:40.000Z DEBUG    http message 29\\nsecond line  index=29 nested={tags=[a,\"b c\"]}")
            #expect(!run.output.contains("\u{1B}"))

            var output = ""
            var error = ""
            _ = await LogStoreCommand.run(
                ["messages", url.path, "--limit", "1"], output: &output, error: &error,
                environment: CommandEnvironment(usesColors: true, now: Self.now))
            #expect(output.contains("\u{1B}["))
        }
    }

    @Test func messagesRejectBadValues() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            for arguments in [
                ["--level", "loud"], ["--level", "error...info"], ["--since", "yesterday"], ["--limit", "0"],
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

    // MARK: sessions

    @Test func sessionsListsTheDemoSessions() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "90", "--sessions", "3").status == 0)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let sessions = try await store.sessions()
            try await store.close()
            #expect(sessions.count == 3)

            let run = await logstore("sessions", url.path)
            #expect(run.status == 0)
            #expect(run.output.contains("Session 3 of 3"))
            for session in sessions { #expect(run.output.contains(session.id.uuidString)) }
            for field in ["Host:", "OS:", "Kernel:", "CPU:", "Memory:", "Disk:", "Uptime:", "Interfaces:"] {
                #expect(run.output.contains(field), "missing \(field)")
            }

            let json = await logstore("sessions", url.path, "--json")
            let array = try #require(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
            #expect(array.count == 3)
            #expect(array.first?["host"] is [String: Any])

            let filtered = await logstore("messages", url.path, "--session", sessions[1].id.uuidString, "--json")
            #expect(filtered.lines.count == 30)
        }
    }

    // MARK: errors and help

    @Test func aMissingStoreIsReportedAndNotCreated() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("missing.logstore")
            for command in ["info", "messages", "sessions"] {
                let run = await logstore(command, url.path)
                #expect(run.status == 1)
                #expect(run.error.contains(url.path))
                #expect(run.error.split(separator: "\n").count == 1)
                #expect(run.output.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func aGarbageManifestIsReportedClearly() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("broken.logstore")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("not json at all".utf8).write(to: url.appendingPathComponent("manifest.json"))
            for command in ["info", "messages", "sessions", "demo"] {
                let run = await logstore(command, url.path)
                #expect(run.status == 1, "\(command)")
                #expect(run.error.contains(url.path))
                #expect(run.error.contains("manifest.json"))
                #expect(run.error.split(separator: "\n").count == 1)
            }
        }
    }

    @Test func usageErrorsExitWith64() async throws {
        try await withTemporaryStoreURL { url in
            let cases: [[String]] = [
                [], ["frobnicate"], ["--bogus"], ["info", url.path, "--bogus"], ["info"], ["info", url.path, "extra"],
                ["messages", url.path, "--limit"], ["info", url.path, "--json=yes"], ["demo", url.path, "--count", "-5"],
                ["sessions", url.path, "-x"], ["help", "frobnicate"],
            ]
            for arguments in cases {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(arguments, output: &output, error: &error)
                #expect(status == 64, "\(arguments)")
                #expect(error.hasPrefix("logstore: ") || arguments.isEmpty, "\(arguments)")
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test(arguments: ["demo", "info", "messages", "sessions"])
    func everyCommandHasHelp(_ command: String) async throws {
        let run = await logstore(command, "--help")
        #expect(run.status == 0)
        #expect(run.output.contains("Usage: logstore \(command) <store>"))
        #expect(run.output.contains("--help"))
        #expect(run.error.isEmpty)
        let viaHelp = await logstore("help", command)
        #expect(viaHelp.output == run.output)
    }

    @Test func topLevelHelpListsTheCommands() async {
        let run = await logstore("--help")
        #expect(run.status == 0)
        for command in ["demo", "info", "messages", "sessions"] {
            #expect(run.output.contains("\n  \(command) "))
        }
    }

    // MARK: pieces

    @Test func levelsParseAsThresholdsAndRanges() throws {
        #expect(try ValueParsers.levels("warning") == .warning ... .critical)
        #expect(try ValueParsers.levels("WARN") == .warning ... .critical)
        #expect(try ValueParsers.levels("info...error") == .info ... .error)
        #expect(throws: UsageError.self) { try ValueParsers.levels("error...info") }
        #expect(throws: UsageError.self) { try ValueParsers.levels("info..") }
    }

    @Test func timesParseAsISOOrAgo() throws {
        let now = Self.now
        #expect(try ValueParsers.date("15m", option: "since", now: now) == now.addingTimeInterval(-900))
        #expect(try ValueParsers.date("2h", option: "since", now: now) == now.addingTimeInterval(-7200))
        #expect(try ValueParsers.date("3d", option: "since", now: now) == now.addingTimeInterval(-3 * 86_400))
        #expect(try ValueParsers.date("2025-06-15T15:06:40Z", option: "since", now: now) == now)
        #expect(try ValueParsers.date("2025-06-15T15:06:40.500Z", option: "since", now: now) == now.addingTimeInterval(0.5))
        #expect(try ValueParsers.date("2025-06-15T17:06:40+02:00", option: "since", now: now) == now)
        #expect(try ValueParsers.date("2025-06-15", option: "since", now: now) == Date(timeIntervalSince1970: 1_749_945_600))
        #expect(throws: UsageError.self) { try ValueParsers.date("m15", option: "since", now: now) }
    }

    @Test func timestampsAreISOWithMilliseconds() {
        #expect(Format.timestamp(Self.now) == "2025-06-15T15:06:40.000Z")
        #expect(Format.timestamp(Self.now.addingTimeInterval(0.9996)) == "2025-06-15T15:06:41.000Z")
        #expect(Format.timestamp(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }

    @Test func sizesAndCountsReadWell() {
        #expect(Format.bytes(999) == "999 bytes")
        #expect(Format.bytes(12_345) == "12.3 KB")
        #expect(Format.bytes(20_660_224) == "20.7 MB")
        #expect(Format.count(1_234_567) == "1,234,567")
        #expect(Format.count(-1000) == "-1,000")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(Format.escaped("a\u{1B}[2Jb\tc\n") == "a\\u{1b}[2Jb\\tc\\n")
        #expect(Format.escaped("plain ünïcode") == "plain ünïcode")
    }

    @Test func argumentsParseInAnyOrder() throws {
        let spec = MessagesCommand.spec
        guard case .arguments(let parsed) = try ArgumentParser.parse(
            ["--label", "a", "store", "--label=b", "--json", "--", "--odd"], for: CommandSpec(
                name: spec.name, summary: "", positionals: spec.positionals + [.init(name: "extra", help: "")],
                options: spec.options))
        else { Issue.record("expected arguments"); return }
        #expect(parsed.positionals == ["store", "--odd"])
        #expect(parsed.all("label") == ["a", "b"])
        #expect(parsed.flag("json"))
    }

    @Test func theContinuationReplacesTheCursor() {
        let line = MessagesCommand.continuation(
            ["my store", "--cursor", "m9", "--level", "warning", "--cursor=m8"], cursor: MessageQuery.Cursor(lastID: 5))
        #expect(line == "logstore messages 'my store' --level warning --cursor m5")
    }
}
