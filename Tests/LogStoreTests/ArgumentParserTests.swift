import Foundation
import Testing
@testable import LogStoreCLI

/// The one argument parser of `logstore`, on a small spec of its own.
@Suite struct ArgumentParserTests: CLITestCase {
    static let json = FlagOption("json", "")
    static let limit = ValueOption("limit", "n", "")
    static let label = RepeatableOption("label", "label", "")
    static let lines = ValueOption("lines", "n", "", short: "n")
    static let spec = CommandSpec(
        name: "demo-spec", summary: "A spec for the tests.",
        positionals: [.init(name: "store", help: "")],
        options: [json, limit, label, lines])

    func parse(_ arguments: String...) throws(UsageError) -> ParsedArguments {
        guard case .arguments(let parsed) = try ArgumentParser.parse(arguments, for: Self.spec) else {
            throw UsageError(message: "asked for help")
        }
        return parsed
    }

    func usageError(_ arguments: String...) -> String? {
        do {
            _ = try ArgumentParser.parse(arguments, for: Self.spec)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func flagsValuesAndPositionalsInAnyOrder() throws {
        let parsed = try parse("--json", "app.logstore", "--limit", "20", "-n", "5")
        #expect(parsed.positionals == ["app.logstore"])
        #expect(parsed.flag(Self.json))
        #expect(parsed.value(Self.limit) == "20")
        #expect(parsed.value(Self.lines) == "5")
    }

    @Test func inlineValuesAndRepeats() throws {
        let parsed = try parse("s", "--limit=7", "--limit", "9", "--label", "a", "--label=b", "--label=x=y")
        #expect(parsed.value(Self.limit) == "9")  // the last wins
        #expect(parsed.all(Self.label) == ["a", "b", "x=y"])
    }

    @Test func everythingAfterDashesIsPositional() throws {
        #expect(try parse("--", "--json").positionals == ["--json"])
        #expect(usageError("a", "--", "b")?.contains("unexpected argument 'b'") == true)
    }

    @Test func aCommandsOwnOptionsParseInAnyOrder() throws {
        var spec = MessagesCommand.spec
        spec.positionals.append(.init(name: "extra", help: ""))
        guard case .arguments(let parsed) = try ArgumentParser.parse(
            ["--label", "a", "store", "--label=b", "--json", "--", "--odd"], for: spec)
        else { Issue.record("expected arguments"); return }
        #expect(parsed.positionals == ["store", "--odd"])
        #expect(parsed.all(MessagesCommand.window.label) == ["a", "b"])
        #expect(parsed.flag(MessagesCommand.json))
    }

    @Test func helpWins() throws {
        #expect(try ArgumentParser.parse(["--limit", "x", "--help"], for: Self.spec).isHelp)
        #expect(try ArgumentParser.parse(["-h"], for: Self.spec).isHelp)
    }

    @Test func unknownOptionsSuggestTheNearest() {
        #expect(usageError("s", "--limt", "3") == "unknown option '--limt'; did you mean '--limit'?")
        #expect(usageError("s", "--jsn") == "unknown option '--jsn'; did you mean '--json'?")
        #expect(usageError("s", "--frobnicate") == "unknown option '--frobnicate'")
        #expect(usageError("s", "-x") == "unknown option '-x'")
    }

    @Test func missingAndUnwantedValues() {
        #expect(usageError("s", "--limit") == "option '--limit' needs a value (--limit <n>)")
        #expect(usageError("s", "--json=yes") == "option '--json' takes no value")
        #expect(usageError() == "missing <store>")
    }

    @Test func globalOptionsAreFlagsOfEveryCommand() throws {
        let parsed = try parse("--utc", "s", "--color", "--json", "--no-color")
        #expect(parsed.global == GlobalOptions(color: .never, utc: true))
        #expect(parsed.positionals == ["s"])
        #expect(parsed.flag(Self.json))
        #expect(usageError("s", "--utc=yes") == "option '--utc' takes no value")
        #expect(usageError("s", "--ut") == "unknown option '--ut'; did you mean '--utc'?")
        // Before the command name, only the front is read.
        let (leading, rest) = GlobalOptions.leading(["--no-color", "--utc", "info", "--color", "s"])
        #expect(leading == GlobalOptions(color: .never, utc: true))
        #expect(rest == ["info", "--color", "s"])
        let environment = GlobalOptions(color: .always).after(leading).applied(to: CommandEnvironment(timeZone: TimeParsingTests.paris))
        #expect(environment.usesColors)
        #expect(environment.timeZone == CommandEnvironment.utc)
    }

    @Test func aValueSlotIsNeverScannedForGlobalOptions() throws {
        let parsed = try parse("s", "--limit", "--utc", "--label", "--color")
        #expect(parsed.value(Self.limit) == "--utc")
        #expect(parsed.all(Self.label) == ["--color"])
        #expect(parsed.global == GlobalOptions())
        #expect(usageError("s", "--", "--utc")?.contains("unexpected argument '--utc'") == true)
    }

    @Test func aCommandLineWithAGlobalOptionAsAValueRuns() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            // `--utc` is what --grep searches for, and --limit keeps its own value.
            let search = await logstore("messages", url.path, "--grep", "--utc", "--limit", "1")
            #expect(search.status == 0, "\(search.error)")
            #expect(search.output == "No messages match.\n")
            // Before the command, it still applies.
            var output = ""
            var error = ""
            var paris = CommandEnvironment(now: CLIFixtures.now)
            paris.timeZone = TimeParsingTests.paris
            let status = await LogStoreCommand.run(
                ["--utc", "messages", url.path, "--limit", "1"], output: &output, error: &error, environment: paris)
            #expect(status == 0, "\(error)")
            #expect(output.hasPrefix("2025-06-15T15:06:40.000Z "), "\(output)")
        }
    }

    @Test func suggestionsStayNearTypos() {
        #expect(Suggestion.nearest("mesages", among: ["messages", "tasks"]) == "messages")
        #expect(Suggestion.nearest("x", among: ["tasks"]) == nil)
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)
    }
}

extension ParseResult {
    var isHelp: Bool {
        if case .help = self { return true }
        return false
    }
}
