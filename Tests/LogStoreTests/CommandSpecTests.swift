import Testing
@testable import LogStoreCLI

/// Every command's spec, checked once for all: its options are declared once each and
/// documented, and reading one it does not declare stops a debug build.
@Suite struct CommandSpecTests {
    static let commandNames = LogStoreCommand.commands.map { $0.spec.name }

    static func spec(_ name: String) throws -> CommandSpec {
        try #require(LogStoreCommand.commands.first { $0.spec.name == name }).spec
    }

    @Test(arguments: CommandSpecTests.commandNames)
    func everyOptionHasOneNameAndOneLetter(_ command: String) throws {
        let spec = try Self.spec(command)
        let names = spec.options.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        // The global options and --help are every command's: a command's own option may not hide one.
        #expect(Set(names).isDisjoint(with: GlobalOptions.names + ["help", "version"]))
        #expect(names.allSatisfy { $0.first?.isLetter == true && $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" } })
        let letters = spec.options.compactMap(\.short)
        #expect(Set(letters).count == letters.count)
        #expect(!letters.contains("h"))
    }

    @Test(arguments: CommandSpecTests.commandNames)
    func everyOptionIsDocumented(_ command: String) throws {
        let spec = try Self.spec(command)
        let lines = spec.help.split(separator: "\n").map(String.init)
        for option in spec.options {
            #expect(!option.help.isEmpty, "--\(option.name)")
            #expect(option.help.hasSuffix("."), "--\(option.name): \(option.help)")
            #expect(lines.contains { $0.hasPrefix("  \(option.synopsis) ") && $0.hasSuffix(option.help) }, "--\(option.name)")
        }
    }

    @Test func anOptionParsesAsItsDeclaredKind() throws {
        let spec = CommandSpec(name: "t", summary: "", options: [MessagesCommand.json, MessagesCommand.level, MessagesCommand.meta])
        guard case .arguments(let parsed) = try ArgumentParser.parse(["--json", "--level=info", "--meta", "a"], for: spec) else {
            Issue.record("expected arguments")
            return
        }
        #expect(parsed.flag(MessagesCommand.json))
        #expect(parsed.value(MessagesCommand.level) == "info")
        #expect(parsed.all(MessagesCommand.meta) == ["a"])
    }

    #if compiler(>=6.2) && DEBUG
    @Test func readingAnOptionTheSpecDoesNotDeclareTraps() async {
        await #expect(processExitsWith: .failure) {
            // `info` has no --level: a typo'd or borrowed option must not read as "not given".
            _ = ParsedArguments(for: InfoCommand.spec).value(MessagesCommand.level)
        }
        await #expect(processExitsWith: .success) {
            _ = ParsedArguments(for: TailCommand.spec).value(MessagesCommand.level)
        }
    }
    #endif
}
