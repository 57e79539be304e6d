/// The arguments of one command, checked against its ``CommandSpec``.
struct ParsedArguments: Sendable {
    /// The positional arguments: those the spec requires, and any optional ones given.
    var positionals: [String] = []
    /// Every value given per option name, in order.
    var values: [String: [String]] = [:]
    /// The flags given.
    var flags: Set<String> = []
    /// The arguments as typed (after the command name), to suggest the next command.
    var raw: [String] = []
    /// `--color`, `--no-color` and `--utc`, which every command takes.
    var global = GlobalOptions()
    /// The options the command's spec lists, by name: only those may be read.
    private(set) var declared: [String: OptionSpec.Kind] = [:]

    /// Arguments of a command with `spec`, none given yet.
    init(for spec: CommandSpec) {
        // A name listed twice is the spec's mistake, which `CommandSpecTests` reports; the first wins, as in parsing.
        declared = Dictionary(spec.options.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `--name` was given.
    func flag(_ option: FlagOption) -> Bool {
        checkDeclared(option)
        return flags.contains(option.name)
    }

    /// The last value of `--name`, when given.
    func value(_ option: ValueOption) -> String? {
        checkDeclared(option)
        return values[option.name]?.last
    }

    /// Every value of a repeatable `--name`.
    func all(_ option: RepeatableOption) -> [String] {
        checkDeclared(option)
        return values[option.name] ?? []
    }

    /// An option the spec does not list would read as never given, whatever the user typed: a
    /// silent bug, so debug builds (and with them the tests) stop at it.
    private func checkDeclared(_ option: some CommandOption) {
        assert(
            declared[option.name] == option.spec.kind,
            "--\(option.name) is read but not declared (as \(option.spec.kind)) in the command's spec")
    }
}

/// What parsing a command's arguments gives: its arguments, or a request for its help.
enum ParseResult: Sendable {
    case arguments(ParsedArguments)
    case help
}

/// A command line that does not match what the command accepts: exit code 64 (`EX_USAGE`).
struct UsageError: Error, Sendable, Equatable {
    var message: String
    /// The command whose usage to show, when known.
    var command: String?
}

/// Parses `--name value`, `--name=value`, flags, one-letter aliases (`-n 20`), `-h` / `--help`,
/// and `--` (everything after it is positional). Options and positionals may come in any order.
/// The global options (``GlobalOptions``) are flags of every command, read in the same pass, so
/// the argument after an option that takes a value is that value whatever it looks like.
enum ArgumentParser {
    static func parse(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> ParseResult {
        var parsed = ParsedArguments(for: spec)
        parsed.raw = arguments
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "-h" || argument == "--help" { return .help }
            let name: String
            var inlineValue: String?
            if !argument.hasPrefix("--") {
                // A short alias (`-n 20`, `-f`): one letter, its value in the next argument.
                guard argument.count == 2, let letter = argument.last,
                      let option = spec.options.first(where: { $0.short == letter })
                else {
                    throw UsageError(message: "unknown option '\(argument)'", command: spec.name)
                }
                name = option.name
            } else if let equals = argument.dropFirst(2).firstIndex(of: "=") {
                let body = argument.dropFirst(2)
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(argument.dropFirst(2))
            }
            if parsed.global.take(name) {
                guard inlineValue == nil else {
                    throw UsageError(message: "option '--\(name)' takes no value", command: spec.name)
                }
                continue
            }
            guard let option = spec.option(named: name) else {
                var message = "unknown option '--\(name)'"
                if let near = Suggestion.nearest(name, among: spec.options.map(\.name) + GlobalOptions.names) { message += "; did you mean '--\(near)'?" }
                throw UsageError(message: message, command: spec.name)
            }
            guard option.takesValue else {
                if inlineValue != nil {
                    throw UsageError(message: "option '--\(name)' takes no value", command: spec.name)
                }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "option '--\(name)' needs a value (\(option.synopsis))", command: spec.name)
                }
                value = arguments[index]
                index += 1
            }
            parsed.values[name, default: []].append(value)
        }
        try checkPositionals(parsed.positionals, for: spec)
        return .arguments(parsed)
    }

    private static func checkPositionals(_ positionals: [String], for spec: CommandSpec) throws(UsageError) {
        if positionals.count < spec.requiredPositionals {
            let missing = spec.positionals[positionals.count..<spec.requiredPositionals].map { "<\($0.name)>" }.joined(separator: " ")
            throw UsageError(message: "missing \(missing)", command: spec.name)
        }
        if positionals.count > spec.positionals.count {
            throw UsageError(message: "unexpected argument '\(positionals[spec.positionals.count])'", command: spec.name)
        }
    }
}
