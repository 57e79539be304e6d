public import Foundation

/// What a command takes from its surroundings rather than from its arguments: whether to colour
/// its output and what "now" is (for `--since 15m`, the demo's timeline and the sweep's age
/// cut-off).
///
/// Tests pass explicit values; the executable uses ``current``.
public struct CommandEnvironment: Sendable {
    /// Whether human output may use ANSI colours.
    public var usesColors: Bool
    /// The current date; `nil` reads the clock when a command needs it.
    public var now: Date?

    /// An environment with the given settings; by default no colours and the real clock.
    public init(usesColors: Bool = false, now: Date? = nil) {
        self.usesColors = usesColors
        self.now = now
    }

    /// Colours when standard output is a terminal, `NO_COLOR` is unset or empty (no-color.org)
    /// and `TERM` is not `dumb`; the real clock.
    public static var current: CommandEnvironment {
        let variables = ProcessInfo.processInfo.environment
        let noColor = !(variables["NO_COLOR"] ?? "").isEmpty
        let dumb = variables["TERM"] == "dumb"
        return CommandEnvironment(usesColors: StandardStream.output.isTerminal && !noColor && !dumb)
    }

    /// The date relative times are measured from.
    var currentDate: Date { now ?? Date() }
}
