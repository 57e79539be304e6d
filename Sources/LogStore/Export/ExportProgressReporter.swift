import Foundation
import Synchronization

/// Hands ``ExportProgress`` to the caller's callback at most every 100 ms (and at each new phase),
/// and carries the export's cancellation to the thread doing the work.
final class ExportProgressReporter: Sendable {
    private let callback: (@Sendable (ExportProgress) -> Void)?
    private let state: Mutex<State>
    private let cancelled = Atomic<Bool>(false)
    /// Held while the callback runs: one report at a time.
    private let delivery = Mutex<Void>(())
    /// What stops the statements running for the export; only set while they run.
    private let interrupters = Mutex<[ConnectionInterrupter]>([])
    private static let interval: Duration = .milliseconds(100)

    private struct State {
        var total: Int64 = 0
        var completed: Int64 = 0
        var phase: ExportProgress.Phase?
        var lastReport: ContinuousClock.Instant?
    }

    init(_ callback: (@Sendable (ExportProgress) -> Void)?) {
        self.callback = callback
        self.state = Mutex(State())
    }

    /// Sets how many units the whole export takes.
    func setTotal(_ total: Int64) {
        state.withLock { $0.total = max(0, total) }
    }

    /// Adds `units` done in `phase`; reports when due.
    func advance(_ phase: ExportProgress.Phase, by units: Int64 = 1) throws {
        try checkCancelled()
        guard let callback else {
            state.withLock { $0.completed += units }
            return
        }
        let now = ContinuousClock.now
        // Under one lock from counting to calling: the compressing workers report from several
        // threads, and a report must neither overlap another nor arrive after a newer one.
        delivery.withLock { _ in
            let due: ExportProgress? = state.withLock { state in
                state.completed += units
                let isNewPhase = state.phase != phase
                guard isNewPhase || state.lastReport.map({ now - $0 >= Self.interval }) ?? true else { return nil }
                state.phase = phase
                state.lastReport = now
                return ExportProgress(phase: phase, completed: state.completed, total: state.total)
            }
            if let due { callback(due) }
        }
    }

    /// The last report: everything done.
    func finish() {
        guard let callback else { return }
        let total = state.withLock { state in
            state.phase = .finished
            state.completed = max(state.completed, state.total)
            return state.completed
        }
        delivery.withLock { _ in callback(ExportProgress(phase: .finished, completed: total, total: total)) }
    }

    /// Marks the export cancelled: the next ``advance(_:by:)`` throws, and a statement running
    /// inside ``interruptible(_:_:)`` is stopped.
    func cancel() {
        interrupters.withLock { interrupters in
            cancelled.store(true, ordering: .relaxed)
            for interrupter in interrupters { interrupter.interrupt() }
        }
    }

    /// Whether the export was cancelled.
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// - Throws: `CancellationError` once the export's task was cancelled.
    func checkCancelled() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Runs `body`, whose long statements on `connection` a cancellation stops (calls nest, one
    /// per connection); a failure caused by that is reported as `CancellationError`.
    func interruptible<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
        let interrupter = connection.interrupter
        let registered = interrupters.withLock { interrupters in
            guard !isCancelled else { return false }
            interrupters.append(interrupter)
            return true
        }
        guard registered else { throw CancellationError() }
        // Unregistered before the connection can close: an interrupt never reaches a closed one.
        defer { interrupters.withLock { _ = $0.popLast() } }
        let result: T
        do {
            result = try body()
        } catch where isCancelled {
            throw CancellationError()
        }
        // An interrupt between two statements is lost (SQLite clears it as the next one starts):
        // the flag still tells.
        try checkCancelled()
        return result
    }
}
