import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// When `logstore` colours and clips its output: decided from the environment the command gets
/// (never from the real terminal), overridden by `--color` / `--no-color`.
@Suite struct CLIOutputStyleTests {
    func run(_ arguments: [String], environment: CommandEnvironment) async -> (status: Int32, output: String, error: String) {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(arguments, output: &output, error: &error, environment: environment)
        return (status, output, error)
    }

    func detect(_ variables: [String: String], terminal: Bool = true, columns: Int? = 80) -> CommandEnvironment {
        CommandEnvironment.detect(variables: variables, outputIsTerminal: terminal, errorIsTerminal: terminal, terminalColumns: columns)
    }

    @Test func coloursOnlyOnATerminalWithoutNoColorOrDumb() {
        #expect(detect([:]).usesColors)
        #expect(detect(["NO_COLOR": ""]).usesColors)  // empty counts as unset (no-color.org)
        #expect(!detect(["NO_COLOR": "1"]).usesColors)
        #expect(!detect(["NO_COLOR": "false"]).usesColors)  // any value
        #expect(!detect(["TERM": "dumb"]).usesColors)
        #expect(!detect([:], terminal: false).usesColors)
    }

    @Test func widthAndProgressOnlyOnATerminal() {
        #expect(detect([:]).terminalWidth == 80)
        #expect(detect(["COLUMNS": "120"], columns: nil).terminalWidth == 120)
        #expect(detect([:], terminal: false).terminalWidth == nil)
        #expect(detect([:]).progressOutput != nil)
        #expect(detect(["TERM": "dumb"]).progressOutput == nil)
        #expect(detect([:], terminal: false).progressOutput == nil)
    }

    @Test func colorAndNoColorOverrideTheEnvironment() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let plain = CommandEnvironment(usesColors: false, now: CLIFixtures.now)
            let forced = await run(["messages", url.path, "--limit", "2", "--color"], environment: plain)
            #expect(forced.status == 0)
            #expect(forced.output.contains("\u{1B}["))
            var coloured = plain
            coloured.usesColors = true
            let off = await run(["--no-color", "messages", url.path, "--limit", "2"], environment: coloured)
            #expect(off.status == 0)
            #expect(!off.output.contains("\u{1B}"))
        }
    }

    @Test func tasksTableHasAHeaderAndClipsOnlyToATerminal() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url, count: 100, tasks: 20)
            let piped = await run(["tasks", url.path], environment: CommandEnvironment(now: CLIFixtures.now))
            let lines = piped.output.split(separator: "\n").map(String.init)
            #expect(lines.first?.split(separator: " ") == ["TIME", "DIR", "METHOD", "STATUS", "DURATION", "SIZE", "URL", "ID"])
            // Columns line up: every row's URL starts where the header's does.
            let urlColumn = try #require(lines.first?.range(of: "URL")).lowerBound.utf16Offset(in: lines[0])
            for line in lines.dropFirst() where !line.hasPrefix("--") {
                #expect(line.dropFirst(urlColumn).hasPrefix("http"), "\(line)")
            }
            #expect(lines.contains { $0.count > 130 })

            let narrow = CommandEnvironment(now: CLIFixtures.now, terminalWidth: 130)
            let clipped = await run(["tasks", url.path], environment: narrow)
            let rows = clipped.output.split(separator: "\n").filter { !$0.hasPrefix("--") }
            #expect(rows.allSatisfy { $0.count <= 130 }, "\(rows.map(\.count))")
            #expect(rows.contains { $0.contains("…") })

            let json = await run(["tasks", url.path, "--json"], environment: narrow)
            #expect(!json.output.contains("TIME"))
            #expect(!json.output.contains("…"))
        }
    }

    @Test func displayWidthCountsTerminalColumns() {
        #expect(DisplayWidth.of("https://a.io/x") == 14)
        #expect(DisplayWidth.of("日本語") == 6)
        #expect(DisplayWidth.of("한국") == 4)
        #expect(DisplayWidth.of("ｶﾀ") == 2)  // halfwidth katakana
        #expect(DisplayWidth.of("ＡＢ") == 4)  // fullwidth Latin
        #expect(DisplayWidth.of("🎉") == 2)
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)  // one grapheme joined by U+200D
        #expect(DisplayWidth.of("🇫🇷") == 2)
        #expect(DisplayWidth.of("❤️") == 2)  // U+2764 asking for emoji presentation
        #expect(DisplayWidth.of("cafe\u{301}") == 4)  // a combining accent takes no column
        #expect(DisplayWidth.of("a\u{200B}b") == 2)  // zero width space
    }

    /// A table whose URL column holds CJK, emoji and combining marks, followed by a column that
    /// shows whether the URL's width was measured right.
    static func wideTable() -> Table {
        var table = Table(columns: [
            .init(header: "ID"), .init(header: "URL", isFlexible: true), .init(header: "SIZE", alignment: .right),
        ])
        for (id, url, size) in [
            ("1", "https://例え.jp/日本語/パス?q=検索", "10"), ("2", "https://party.io/🎉/👨‍👩‍👧/🇫🇷", "200"),
            ("3", "https://cafe\u{301}.fr/cre\u{300}me", "3"), ("4", "https://plain.example.com/a/b", "4000"),
        ] {
            table.rows.append([Table.Cell(id), Table.Cell(url), Table.Cell(size)])
        }
        return table
    }

    @Test func wideCharactersLineUpWithTheHeader() {
        let lines = Self.wideTable().lines(width: nil, headerPaint: { $0 })
        #expect(lines.count == 5)
        // The last column is right-aligned: every row ends in the same terminal column, and the
        // URL column starts in the same one.
        #expect(Set(lines.map { DisplayWidth.of($0) }).count == 1, "\(lines)")
        #expect(lines.allSatisfy { DisplayWidth.of($0.prefix { $0 != "h" && $0 != "U" }) == 4 })
        #expect(lines[2].contains("👨‍👩‍👧"))

        // Clipped to a terminal, every row takes exactly the terminal's columns.
        for width in 24...40 {
            let clipped = Self.wideTable().lines(width: width, headerPaint: { $0 })
            #expect(clipped.dropFirst().allSatisfy { DisplayWidth.of($0) == width }, "\(width): \(clipped)")
        }
    }

    @Test func wideLabelsLineUpTheMessageText() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            for label in ["注文", "http", "🎉"] {
                store.storeMessage(label: label, level: .info, message: "TEXT")
            }
            try await store.close()
            let output = await run(["messages", url.path], environment: CommandEnvironment(now: CLIFixtures.now)).output
            let lines = output.split(separator: "\n").filter { $0.contains("TEXT") }
            #expect(lines.count == 3)
            // The text starts in the same terminal column on every line, whatever the label's characters.
            let columns = try lines.map { line in
                DisplayWidth.of(line[..<(try #require(line.range(of: "TEXT"))).lowerBound])
            }
            #expect(Set(columns).count == 1, "\(lines)")
        }
    }

    @Test func clippingYieldsExactlyTheColumnsAskedForAndWholeGraphemes() {
        let text = "日本語🎉cafe\u{301}👨‍👩‍👧x"
        let graphemes = Array(text)
        for width in 1...DisplayWidth.of(text) - 1 {
            var cell = Table.Cell(String(text.prefix(3)))
            cell.append(String(text.dropFirst(3)))
            let clipped = cell.clipped(to: width)
            let rendered = clipped.rendered(padding: 0, alignment: .left)
            #expect(DisplayWidth.of(rendered) == width, "\(width): \(rendered)")
            #expect(rendered.hasSuffix("…"))
            // What is kept is whole graphemes of the original, then at most one space of filler.
            let kept = Array(rendered.dropLast().trimmingCharacters(in: .whitespaces))
            #expect(Array(graphemes.prefix(kept.count)) == kept, "\(width): \(rendered)")
        }
        #expect(Table.Cell(text).clipped(to: DisplayWidth.of(text)).rendered(padding: 0, alignment: .left) == text)
    }

    @Test func utcAndLocalTimesInHumanOutput() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            var paris = CommandEnvironment(now: CLIFixtures.now)
            paris.timeZone = TimeParsingTests.paris
            let local = await run(["messages", url.path, "--limit", "1"], environment: paris)
            #expect(local.output.hasPrefix("2025-06-15T17:06:40.000+02:00 "))
            let utc = await run(["messages", url.path, "--limit", "1", "--utc"], environment: paris)
            #expect(utc.output.hasPrefix("2025-06-15T15:06:40.000Z "))
            // A time typed without a zone is the command's local time: 17:06:40 in Paris.
            let since = await run(["messages", url.path, "--since", "2025-06-15T17:06:40", "--json"], environment: paris)
            #expect(since.output.split(separator: "\n").count == 1)
        }
    }

    @Test func eachCommandTakesOnlyItsOwnCursor() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let environment = CommandEnvironment(now: CLIFixtures.now)
            let messages = await run(["messages", url.path, "--cursor", "t12"], environment: environment)
            #expect(messages.status == ExitStatus.usage)
            #expect(messages.error.contains("a cursor of 'logstore tasks'"))
            let tasks = await run(["tasks", url.path, "--cursor", "m12"], environment: environment)
            #expect(tasks.status == ExitStatus.usage)
            #expect(tasks.error.contains("a cursor of 'logstore messages'"))
        }
    }

    @Test func helpListsCommandsExitStatusesAndExamples() async {
        let top = await run(["--help"], environment: CommandEnvironment())
        #expect(top.status == 0)
        for text in ["logstore help <command>", "Exit statuses:", "64", "66", "75", "--no-color", "--utc"] {
            #expect(top.output.contains(text), "\(text)")
        }
        for command in LogStoreCommand.commands {
            let help = command.spec.help
            #expect(help.contains("Usage: logstore \(command.spec.name)"))
            let examples = help.components(separatedBy: "\n").filter { $0.hasPrefix("  logstore \(command.spec.name) ") }
            #expect((2...4).contains(examples.count), "\(command.spec.name): \(examples.count) examples")
        }
        let typo = await run(["mesages"], environment: CommandEnvironment())
        #expect(typo.status == ExitStatus.usage)
        #expect(typo.error.contains("did you mean 'messages'?"))
    }
}
