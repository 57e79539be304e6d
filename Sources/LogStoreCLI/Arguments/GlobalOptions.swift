import Foundation

/// The options every command takes: `--color`, `--no-color` and `--utc`. ``ArgumentParser``
/// reads them among each command's own options, in the same pass, so an option's value
/// (`--grep --utc`) is never taken for one; they may also come before the command name.
struct GlobalOptions: Sendable, Equatable {
    /// `--color` or `--no-color`, the last given; `.auto` when neither.
    var color = TextStyle.ColorChoice.auto
    /// `--utc` was given.
    var utc = false

    /// The options and their help, for `logstore --help` and each command's.
    static let help: [(String, String)] = [
        ("--color", "Colour the output even when it is not a terminal (for less -R)."),
        ("--no-color", "Never colour the output (as NO_COLOR=1 does)."),
        ("--utc", "Show times in UTC, and read times given without a zone as UTC (default: local time)."),
    ]

    /// The names without dashes, for suggestions.
    static let names = ["color", "no-color", "utc"]

    /// Records `--name` when it is a global option; `false` (and nothing recorded) otherwise.
    mutating func take(_ name: String) -> Bool {
        switch name {
        case "color": color = .always
        case "no-color": color = .never
        case "utc": utc = true
        default: return false
        }
        return true
    }

    /// The options given before the command name, and the arguments from the command name on.
    /// Only the front is read: from the command name on, ``ArgumentParser`` knows which
    /// arguments are values.
    static func leading(_ arguments: [String]) -> (GlobalOptions, [String]) {
        var options = GlobalOptions()
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("--"), options.take(String(arguments[index].dropFirst(2))) {
            index += 1
        }
        return (options, Array(arguments[index...]))
    }

    /// These options over `other` (given earlier on the line): a later colour choice wins.
    func after(_ other: GlobalOptions) -> GlobalOptions {
        GlobalOptions(color: color == .auto ? other.color : color, utc: utc || other.utc)
    }

    /// `environment` as these options change it; what it says stands unless they override it.
    func applied(to environment: CommandEnvironment) -> CommandEnvironment {
        var environment = environment
        if utc { environment.timeZone = CommandEnvironment.utc }
        switch color {
        case .auto: break
        case .always, .never:
            environment.usesColors = TextStyle.colorsEnabled(color, variables: [:], isTerminal: false)
        }
        return environment
    }
}
