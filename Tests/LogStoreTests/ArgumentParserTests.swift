import Testing
@testable import LogStoreCLI

/// The one argument parser of `logstore`, on a small spec of its own.
@Suite struct ArgumentParserTests {
    static let spec = CommandSpec(
        name: "demo-spec", summary: "A spec for the tests.",
        positionals: [.init(name: "store", help: "")],
        options: [
            .flag("json", ""), .value("limit", "n", ""), .repeatable("label", "label", ""),
            OptionSpec.value("lines", "n", "").short("n"),
        ])

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
        #expect(parsed.flag("json"))
        #expect(parsed.value("limit") == "20")
        #expect(parsed.value("lines") == "5")
    }

    @Test func inlineValuesAndRepeats() throws {
        let parsed = try parse("s", "--limit=7", "--limit", "9", "--label", "a", "--label=b", "--label=x=y")
        #expect(parsed.value("limit") == "9")  // the last wins
        #expect(parsed.all("label") == ["a", "b", "x=y"])
    }

    @Test func everythingAfterDashesIsPositional() throws {
        #expect(try parse("--", "--json").positionals == ["--json"])
        #expect(usageError("a", "--", "b")?.contains("unexpected argument 'b'") == true)
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

    @Test func globalOptionsAreTakenOutAnywhereBeforeDashes() {
        var environment = CommandEnvironment()
        let rest = GlobalOptions.apply(["info", "--color", "s", "--utc", "--", "--no-color"], to: &environment)
        #expect(rest == ["info", "s", "--", "--no-color"])
        #expect(environment.usesColors)
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
