import Dispatch
import Synchronization

/// Hands ``SweepProgress`` to a caller's callback: at each new phase and at most every 100 ms
/// within one, one call at a time, in order, on a queue of its own.
///
/// Steps report from the writer thread; the callback runs elsewhere so that a slow one never
/// delays logging (the writer commits logged events between steps). Reports are queued under
/// the state's lock, so the serial queue delivers them in the order they were made, and
/// ``finish()`` / ``drain()`` return only once the queue has run them all: nothing is
/// delivered after ``LogStore/sweep(progress:)`` returns.
final class SweepProgressReporter: Sendable {
    private let callback: @Sendable (SweepProgress) -> Void
    private let queue = DispatchQueue(label: "logstore-sweep-progress")
    private let state = Mutex(State())
    private static let interval: Duration = .milliseconds(100)

    private struct State {
        var progress: SweepProgress?
        var lastReport: ContinuousClock.Instant?
        /// Whether `progress` holds counts the throttle kept back: delivered before the next
        /// phase (or the end) replaces them, so a phase's last count is never lost.
        var isPending = false

        /// The kept-back counts, if any, as the report to deliver first.
        mutating func takePending() -> SweepProgress? {
            defer { isPending = false }
            return isPending ? progress : nil
        }
    }

    /// The reporter of the sweep running in this task; `nil` (no reports, no estimates) when
    /// its caller gave no callback. A task-local rather than a property: removals that share
    /// the sweep's steps (`removeAll`) run in other tasks and must not report as the sweep.
    @TaskLocal static var current: SweepProgressReporter?

    init(_ callback: @escaping @Sendable (SweepProgress) -> Void) {
        self.callback = callback
    }

    /// Starts `phase`, of `total` units when known; reported at once.
    func begin(_ phase: SweepProgress.Phase, total: Int64?) {
        state.withLock { state in
            if let pending = state.takePending() { deliver(pending) }
            let progress = SweepProgress(phase: phase, completed: 0, total: total.map { max(0, $0) })
            state.progress = progress
            state.lastReport = ContinuousClock.now
            deliver(progress)
        }
    }

    /// Adds `units` done in the current phase; reported when the last report is 100 ms old.
    func advance(by units: Int64) {
        guard units > 0 else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            guard var progress = state.progress else { return }
            progress.completed += units
            state.progress = progress
            let isComplete = progress.total.map { progress.completed >= $0 } ?? false
            guard isComplete || state.lastReport.map({ now - $0 >= Self.interval }) ?? true else {
                state.isPending = true
                return
            }
            state.lastReport = now
            state.isPending = false
            deliver(progress)
        }
    }

    /// Reports ``SweepProgress/Phase/finished`` and returns once every report has been delivered.
    func finish() async {
        state.withLock { state in
            if let pending = state.takePending() { deliver(pending) }
            state.progress = SweepProgress(phase: .finished, completed: 0, total: 0)
            deliver(SweepProgress(phase: .finished, completed: 0, total: 0))
        }
        await drain()
    }

    /// Returns once every report made so far has been delivered (after a failed sweep).
    func drain() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// Queues one report; called under the state's lock, which keeps reports in order.
    private func deliver(_ progress: SweepProgress) {
        queue.async { [callback] in callback(progress) }
    }
}
