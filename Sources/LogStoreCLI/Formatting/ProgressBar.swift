import LogStore
import Synchronization

/// A one-line progress bar redrawn in place (`\r`), for a terminal's standard error:
/// `[##########----------]  50%  12,345 of 24,690 rows  messages`. Plain characters only, no
/// colour (so `NO_COLOR` has nothing to turn off); ``finish()`` erases it before the summary.
final class ProgressBar: Sendable {
    private let output: @Sendable (String) -> Void
    private let unit: String
    /// Whether something is drawn (so that ``finish()`` erases only what is there).
    private let isDrawn = Mutex(false)
    private static let width = 30

    /// - Parameters:
    ///   - output: where the bar goes (the environment's ``CommandEnvironment/progressOutput``).
    ///   - unit: what ``ExportProgress/completed`` counts ("rows", "bytes").
    init(output: @escaping @Sendable (String) -> Void, unit: String) {
        self.output = output
        self.unit = unit
    }

    /// Redraws the bar for `progress` (nothing once the work is finished).
    func draw(_ progress: ExportProgress) {
        guard progress.phase != .finished else { return }
        let filled = Int((progress.fractionCompleted * Double(Self.width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled)
        let percent = Int((progress.fractionCompleted * 100).rounded(.down))
        let percentText = String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
        let counts = "\(Format.count(Int(progress.completed))) of \(Format.count(Int(progress.total))) \(unit)"
        isDrawn.withLock { $0 = true }
        // `ESC [ K` erases what a longer earlier line left on the right.
        output("\r[\(bar)] \(percentText)  \(counts)  \(progress.phase.rawValue)\u{1B}[K")
    }

    /// Erases the bar.
    func finish() {
        let wasDrawn = isDrawn.withLock { drawn in
            defer { drawn = false }
            return drawn
        }
        if wasDrawn { output("\r\u{1B}[K") }
    }
}
