import Foundation

/// The options every command takes, which `logstore` reads before the command's own:
/// `--color`, `--no-color` and `--utc`.
enum GlobalOptions {
    /// The options and their help, for `logstore --help` and each command's.
    static let help: [(String, String)] = [
        ("--color", "Colour the output even when it is not a terminal (for less -R)."),
        ("--no-color", "Never colour the output (as NO_COLOR=1 does)."),
        ("--utc", "Show times in UTC, and read times given without a zone as UTC (default: local time)."),
    ]

    /// `arguments` without the global options, which are applied to `environment`. They may
    /// stand anywhere before `--`; the last of `--color` and `--no-color` wins.
    static func apply(_ arguments: [String], to environment: inout CommandEnvironment) -> [String] {
        var remaining: [String] = []
        var choice = TextStyle.ColorChoice.auto
        var afterDashes = false
        for argument in arguments {
            if afterDashes || argument == "--" {
                afterDashes = true
                remaining.append(argument)
                continue
            }
            switch argument {
            case "--color": choice = .always
            case "--no-color": choice = .never
            case "--utc": environment.timeZone = CommandEnvironment.utc
            default: remaining.append(argument)
            }
        }
        switch choice {
        case .auto: break
        case .always, .never:
            // The environment's own decision stands unless the command line overrides it.
            environment.usesColors = TextStyle.colorsEnabled(choice, variables: [:], isTerminal: false)
        }
        return remaining
    }
}
