import Foundation
import LogStore

/// ANSI colours for human output; every method returns its text unchanged when colours are off.
///
/// Whether they are on is decided in one place, ``colorsEnabled(_:variables:isTerminal:)``.
public struct TextStyle: Sendable {
    let enabled: Bool
    /// The zone human output shows times in (`--utc`, or the machine's).
    var timeZone: TimeZone = CommandEnvironment.utc

    /// A time as human output shows it: in ``timeZone``, with its offset.
    func time(_ date: Date) -> String { Format.timestamp(date, in: timeZone) }

    /// What the user asked for: `--color` (``always``), `--no-color` (``never``), or neither.
    public enum ColorChoice: Sendable {
        /// Colours on a terminal only, unless `NO_COLOR` or `TERM=dumb` says otherwise.
        case auto
        /// Colours even when piped (`--color`, for `less -R`).
        case always
        /// No colours (`--no-color`).
        case never
    }

    /// Whether output gets colours: `--color` forces them and `--no-color` turns them off;
    /// otherwise only on a terminal, when `NO_COLOR` is unset or empty (no-color.org: any other
    /// value turns colours off) and `TERM` is not `dumb`.
    ///
    /// - Parameters:
    ///   - choice: the command line's choice.
    ///   - variables: the process environment.
    ///   - isTerminal: whether standard output is a terminal.
    public static func colorsEnabled(_ choice: ColorChoice, variables: [String: String], isTerminal: Bool) -> Bool {
        switch choice {
        case .always: return true
        case .never: return false
        case .auto:
            let noColor = !(variables["NO_COLOR"] ?? "").isEmpty
            return isTerminal && !noColor && variables["TERM"] != "dumb"
        }
    }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func cyan(_ text: String) -> String { wrap(text, "36") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func boldRed(_ text: String) -> String { wrap(text, "1;31") }

    /// A status column in the colour of its class: 2xx green, 3xx cyan, 4xx yellow, 5xx and
    /// failures without a response red, pending dim.
    func status(_ text: String, code: Int?, state: NetworkTaskState) -> String {
        guard let code else { return state == .pending ? dim(text) : boldRed(text) }
        switch code {
        case 200..<300: return green(text)
        case 300..<400: return cyan(text)
        case 400..<500: return yellow(text)
        case 500..<600: return boldRed(text)
        default: return text
        }
    }

    /// A level's name, upper-cased and padded to the widest (`CRITICAL`), in its colour.
    func level(_ level: LogStore.Level) -> String {
        coloured(level.name.uppercased().padding(toLength: Self.levelWidth, withPad: " ", startingAt: 0), as: level)
    }

    /// Any text in a level's colour (the summary's histogram bars).
    func coloured(_ text: String, as level: LogStore.Level) -> String {
        switch level {
        case .trace: return wrap(text, "2")
        case .debug: return wrap(text, "34")
        case .info: return wrap(text, "32")
        case .notice: return wrap(text, "36")
        case .warning: return wrap(text, "33")
        case .error: return wrap(text, "1;31")
        case .critical: return wrap(text, "1;97;41")
        }
    }

    static let levelWidth = LogStore.Level.allCases.map(\.name.count).max() ?? 8
}
