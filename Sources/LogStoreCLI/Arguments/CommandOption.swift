/// An option as a command declares it: once, as a constant that its ``CommandSpec`` lists and its
/// code reads ``ParsedArguments`` with.
///
/// A lookup names the constant, never a string, so a misspelt option does not compile; the
/// constant's type says how it is read, so a flag cannot be read as a value. Reading an option
/// the command's spec does not list traps in debug builds (``ParsedArguments``), which the tests
/// run every command in.
protocol CommandOption: Sendable {
    /// The option as parsing and `--help` see it.
    var spec: OptionSpec { get }
}

extension CommandOption {
    /// The long name without dashes (`level`), as error messages name it.
    var name: String { spec.name }
}

/// An option that is present or not: `--json`. Read with ``ParsedArguments/flag(_:)``.
struct FlagOption: CommandOption {
    let spec: OptionSpec

    /// - Parameter short: a one-letter alias (`-f`), for the commands users know by it.
    init(_ name: String, _ help: String, short: Character? = nil) {
        spec = OptionSpec(name: name, kind: .flag, help: help, short: short)
    }
}

/// An option that takes a value: `--limit 20` or `--limit=20`; given twice, the last wins. Read
/// with ``ParsedArguments/value(_:)``.
struct ValueOption: CommandOption {
    let spec: OptionSpec

    /// - Parameters:
    ///   - placeholder: the value's name in `--help` (`--limit <n>`).
    ///   - short: a one-letter alias (`-n` for `--lines`), for the commands users know by it.
    init(_ name: String, _ placeholder: String, _ help: String, short: Character? = nil) {
        spec = OptionSpec(name: name, kind: .value(placeholder: placeholder), help: help, short: short)
    }
}

/// An option that takes a value and may be repeated: `--label http --label db`. Read with
/// ``ParsedArguments/all(_:)``.
struct RepeatableOption: CommandOption {
    let spec: OptionSpec

    /// - Parameter placeholder: the value's name in `--help` (`--label <label>...`).
    init(_ name: String, _ placeholder: String, _ help: String) {
        spec = OptionSpec(name: name, kind: .repeatable(placeholder: placeholder), help: help)
    }
}
