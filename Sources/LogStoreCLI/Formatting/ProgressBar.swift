import LogStore
import Synchronization

/// A one-line progress bar redrawn in place (`\r`), for a terminal's standard error:
/// `[##########----------]  50%  12,345 of 24,690 rows  messages`, or, while the total is
/// unknown, `[??????????????????????????????]  12,345 sessions  removing empty sessions`. Plain
/// characters only, no colour (so `NO_COLOR` has nothing to turn off); ``finish()`` erases it
/// before the summary. Export, sweep and demo all draw through ``draw(fraction:completed:total:unit:label:)``.
final class ProgressBar: Sendable {
    private let output: @Sendable (String) -> Void
    /// Whether something is drawn (so that ``finish()`` erases only what is there).
    private let isDrawn = Mutex(false)
    private static let width = 30

    /// - Parameter output: where the bar goes (the environment's ``CommandEnvironment/progressOutput``).
    init(output: @escaping @Sendable (String) -> Void) {
        self.output = output
    }

    /// Redraws the bar.
    ///
    /// - Parameters:
    ///   - fraction: how much is done, 0 to 1; `nil` when unknown (no percentage then).
    ///   - completed: units done.
    ///   - total: units in all, when known.
    ///   - unit: what the units are ("rows", "bytes", "messages and tasks").
    ///   - label: the phase, at the end of the line (escaped by the caller if it can hold
    ///     logged text; the labels drawn today are the tool's own words).
    func draw(fraction: Double?, completed: Int64, total: Int64?, unit: String, label: String) {
        let bar: String
        let percentText: String
        if let fraction {
            let clamped = min(1, max(0, fraction))
            let filled = Int((clamped * Double(Self.width)).rounded(.down))
            bar = String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled)
            let percent = Int((clamped * 100).rounded(.down))
            percentText = " " + String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
        } else {
            bar = String(repeating: "?", count: Self.width)
            percentText = ""
        }
        let counts = total.map { "\(Format.count(Int(completed))) of \(Format.count(Int($0))) \(unit)" }
            ?? "\(Format.count(Int(completed))) \(unit)"
        isDrawn.withLock { $0 = true }
        // `ESC [ K` erases what a longer earlier line left on the right.
        output("\r[\(bar)]\(percentText)  \(counts)  \(label)\u{1B}[K")
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

extension ProgressBar {
    /// Draws an export's progress (nothing once it is finished: the summary follows).
    ///
    /// - Parameter unit: what ``ExportProgress/completed`` counts ("rows", "bytes").
    func draw(_ progress: ExportProgress, unit: String) {
        guard progress.phase != .finished else { return }
        draw(fraction: progress.fractionCompleted, completed: progress.completed, total: progress.total,
             unit: unit, label: progress.phase.rawValue)
    }

    /// Draws a sweep's progress in its current phase (nothing once it is finished).
    func draw(_ progress: SweepProgress) {
        guard progress.phase != .finished else { return }
        draw(fraction: progress.phaseFractionCompleted, completed: progress.completed, total: progress.total,
             unit: progress.phase.unit.rawValue, label: Self.label(progress.phase))
    }

    /// `removing old messages`: a sweep phase in words.
    static func label(_ phase: SweepProgress.Phase) -> String {
        switch phase {
        case .removingOldMessages: "removing old messages"
        case .removingOldTasks: "removing old tasks"
        case .droppingBodies: "dropping bodies"
        case .trimmingMessages: "trimming to the size limit"
        case .removingOrphanFiles: "removing orphan files"
        case .removingEmptySessions: "removing empty sessions"
        case .compactingSearchIndex: "compacting the search index"
        case .givingSpaceBack: "giving space back"
        case .finished: "finished"
        }
    }
}
