public import Foundation
import Glibc

/// What a command takes from its surroundings rather than from its arguments: whether to colour
/// its output, how wide the terminal is, which time zone it shows and reads times in, and what
/// "now" is (for `--since 15m`, the demo's timeline and the sweep's age cut-off).
///
/// Tests pass explicit values; the executable uses ``current``.
public struct CommandEnvironment: Sendable {
    /// Whether human output may use ANSI colours and bold or dim text.
    public var usesColors: Bool
    /// The current date; `nil` reads the clock when a command needs it.
    public var now: Date?
    /// Where long work (`export`, `demo`, `sweep`) draws its progress bar: text holding carriage
    /// returns, to go straight to a terminal; `nil` (the default) for no bar. Called from any
    /// thread.
    public var progressOutput: (@Sendable (String) -> Void)?
    /// The columns of the terminal that tables are clipped to; `nil` (the default, and whenever
    /// standard output is not a terminal) for no clipping.
    public var terminalWidth: Int?
    /// The zone times are shown in, and that a time typed without a zone (`--since 2026-12-01T10:00`)
    /// is read in. Default: UTC, so that output does not depend on the machine; ``current`` uses
    /// the machine's zone, and `--utc` sets UTC.
    public var timeZone: TimeZone
    /// Whether standard output is a terminal someone reads. Hints meant for that reader (the
    /// cursor of the next page after `--json` or `--ids` output) are left out when it is not:
    /// a pipeline's consumer pages with the data it got. Default `false`.
    public var outputIsTerminal: Bool

    /// An environment with the given settings; by default no colours, the real clock, no
    /// progress bar, no clipping, UTC and output that is not a terminal.
    public init(
        usesColors: Bool = false, now: Date? = nil, progressOutput: (@Sendable (String) -> Void)? = nil,
        terminalWidth: Int? = nil, timeZone: TimeZone = CommandEnvironment.utc, outputIsTerminal: Bool = false
    ) {
        self.outputIsTerminal = outputIsTerminal
        self.usesColors = usesColors
        self.now = now
        self.progressOutput = progressOutput
        self.terminalWidth = terminalWidth
        self.timeZone = timeZone
    }

    /// The environment of a process with these environment `variables` and streams: colours as
    /// ``TextStyle/colorsEnabled(_:variables:isTerminal:)`` decides for `.auto`, a progress bar on
    /// standard error when it is a terminal that is not `dumb` (nothing when it is piped or
    /// redirected), the terminal's width when standard output is one, the machine's time zone,
    /// and whether standard output is a terminal.
    ///
    /// - Parameters:
    ///   - variables: the process environment (`NO_COLOR`, `TERM`, `COLUMNS`).
    ///   - outputIsTerminal: whether standard output is a terminal.
    ///   - errorIsTerminal: whether standard error is a terminal.
    ///   - terminalColumns: the width the terminal reports, when it reports one.
    public static func detect(
        variables: [String: String], outputIsTerminal: Bool, errorIsTerminal: Bool, terminalColumns: Int?
    ) -> CommandEnvironment {
        var progress: (@Sendable (String) -> Void)?
        if errorIsTerminal && variables["TERM"] != "dumb" {
            progress = { text in
                var stream = StandardStream.error
                stream.write(text)
            }
        }
        var width: Int?
        if outputIsTerminal {
            // The terminal's own answer first; COLUMNS for terminals that give none.
            width = terminalColumns.flatMap { $0 > 0 ? $0 : nil } ?? variables["COLUMNS"].flatMap { Int($0) }
        }
        return CommandEnvironment(
            usesColors: TextStyle.colorsEnabled(.auto, variables: variables, isTerminal: outputIsTerminal),
            progressOutput: progress, terminalWidth: width, timeZone: .current, outputIsTerminal: outputIsTerminal)
    }

    /// The environment of this process: ``detect(variables:outputIsTerminal:errorIsTerminal:terminalColumns:)``
    /// on its real environment, streams and terminal size.
    public static var current: CommandEnvironment {
        detect(
            variables: ProcessInfo.processInfo.environment, outputIsTerminal: StandardStream.output.isTerminal,
            errorIsTerminal: StandardStream.error.isTerminal, terminalColumns: terminalColumns(STDOUT_FILENO))
    }

    /// UTC, the zone of JSON output and of `--utc`.
    public static let utc = TimeZone(secondsFromGMT: 0) ?? .gmt

    /// The columns of the terminal on `descriptor` (`ioctl(TIOCGWINSZ)`), `nil` when it is not a
    /// terminal or does not say.
    static func terminalColumns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The date relative times are measured from.
    var currentDate: Date { now ?? Date() }
}
