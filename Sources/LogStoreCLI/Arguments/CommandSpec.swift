/// What a command accepts, used both to parse its arguments and to print its help.
struct CommandSpec: Sendable {
    /// The command's name (`messages`).
    var name: String
    /// One line for `logstore --help`.
    var summary: String
    /// Required positional arguments, in order.
    var positionals: [Positional] = []
    /// Options (`--name` flags and `--name value` options), in the order `--help` lists them.
    var options: [OptionSpec]
    /// Paragraphs printed after the options: examples, value formats.
    var discussion: String

    /// - Parameter options: the command's option constants, which its code reads the arguments
    ///   with.
    init(
        name: String, summary: String, positionals: [Positional] = [], options: [any CommandOption] = [],
        discussion: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.options = options.map(\.spec)
        self.discussion = discussion
    }

    /// A positional argument: required, unless an option can stand for it (the last ones only).
    struct Positional: Sendable {
        /// The placeholder shown in usage (`store`).
        var name: String
        var help: String
        /// May be left out (`task <store> --latest` names no id); usage shows it in brackets.
        var isOptional = false
    }

    /// How many positionals must be given.
    var requiredPositionals: Int { positionals.filter { !$0.isOptional }.count }

    /// The usage line: `logstore messages <store> [options]`.
    var usage: String {
        var parts = ["logstore", name]
        parts += positionals.map { $0.isOptional ? "[<\($0.name)>]" : "<\($0.name)>" }
        if !options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    /// The full `--help` text.
    var help: String {
        var lines = [summary, "", "Usage: \(usage)"]
        if !positionals.isEmpty {
            lines += ["", "Arguments:"]
            lines += Self.table(positionals.map { ("<\($0.name)>", $0.help) })
        }
        let rows = options.map { ($0.synopsis, $0.help) } + [("-h, --help", "Show this help.")]
        lines += ["", "Options:"]
        lines += Self.table(rows)
        if !discussion.isEmpty { lines += ["", discussion] }
        lines += ["", "Global options: --color, --no-color, --utc. Exit statuses: 'logstore --help'."]
        return lines.joined(separator: "\n")
    }

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// Two aligned columns, indented.
    static func table(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { left, right in
            "  " + left.padding(toLength: width + 2, withPad: " ", startingAt: 0) + right
        }
    }
}

/// One `--name` option of a command, as parsing and `--help` see it. Commands declare theirs as
/// ``CommandOption`` constants, which carry one of these.
struct OptionSpec: Sendable {
    /// The long name without dashes (`level`).
    var name: String
    var kind: Kind
    var help: String
    /// A one-letter alias (`-n` for `--lines`), as the commands users know have (`tail -n`).
    var short: Character?

    enum Kind: Sendable, Equatable {
        /// Present or not: `--json`.
        case flag
        /// Takes a value: `--limit 20` or `--limit=20`; given twice, the last wins.
        case value(placeholder: String)
        /// Takes a value and may be repeated: `--label http --label db`.
        case repeatable(placeholder: String)
    }

    var takesValue: Bool {
        if case .flag = kind { return false }
        return true
    }

    var synopsis: String {
        let alias = short.map { "-\($0), " } ?? ""
        switch kind {
        case .flag: return alias + "--\(name)"
        case .value(let placeholder): return alias + "--\(name) <\(placeholder)>"
        case .repeatable(let placeholder): return alias + "--\(name) <\(placeholder)>..."
        }
    }
}
