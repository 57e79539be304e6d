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
    /// Where long work (`export`) draws its progress bar: text holding carriage returns, to
    /// go straight to a terminal; `nil` (the default) for no bar. Called from any thread.
    public var progressOutput: (@Sendable (String) -> Void)?

    /// An environment with the given settings; by default no colours, the real clock and no
    /// progress bar.
    public init(usesColors: Bool = false, now: Date? = nil, progressOutput: (@Sendable (String) -> Void)? = nil) {
        self.usesColors = usesColors
        self.now = now
        self.progressOutput = progressOutput
    }

    /// Colours when standard output is a terminal, `NO_COLOR` is unset or empty (no-color.org)
    /// and `TERM` is not `dumb`; the real clock; a progress bar on standard error when it is a
    /// terminal that is not `dumb` (nothing when it is piped or redirected).
    public static var current: CommandEnvironment {
        let variables = ProcessInfo.processInfo.environment
        let noColor = !(variables["NO_COLOR"] ?? "").isEmpty
        let dumb = variables["TERM"] == "dumb"
        var progress: (@Sendable (String) -> Void)?
        if StandardStream.error.isTerminal && !dumb {
            progress = { text in
                var stream = StandardStream.error
                stream.write(text)
            }
        }
        return CommandEnvironment(
            usesColors: StandardStream.output.isTerminal && !noColor && !dumb, progressOutput: progress)
    }

    /// The date relative times are measured from.
    var currentDate: Date { now ?? Date() }
}
