/// The writer's idle-time job of keeping the full-text index caught up (``SearchIndex``): one
/// step whenever the index lags and the writer is idle; while the writer is busy, as many as
/// bring it back within ``SearchIndex/maximumLag`` (a round can commit more events than one step
/// indexes, and a lag that only grew would make every search read more), at most
/// ``busySteps``. Once the index has caught up and the writer is idle, a merge step
/// (``SearchMerging``) when the caller allows one.
enum SearchIndexRound {
    /// The most index steps between two rounds of a busy writer (~100 ms each).
    static let busySteps = 2

    /// Runs the steps that are due.
    ///
    /// - Returns: whether work remains after a step (the writer loops again).
    static func run(_ writer: BatchWriter, isBusy: Bool, mayMerge: Bool, onStep: () -> Void) throws -> Bool {
        var steps = 0
        // Work time, not a timer: measured on the real clock.
        let roundStart = ContinuousClock.now
        var lag = try SearchIndex.lag(writer.connection)
        if !isBusy, lag == 0 {
            guard mayMerge, SearchMerging.isQuiet(writer) else { return false }
            return try SearchMerging.step(writer)
        }
        while true {
            guard lag > 0, !isBusy || lag > SearchIndex.maximumLag else { return false }
            let step = try SearchIndex.step(writer)
            onStep()
            steps += 1
            lag = step.remaining
            guard step.covered > 0, step.remaining > 0 else { return false }
            if !isBusy || steps >= busySteps || ContinuousClock.now - roundStart >= SearchIndex.stepTarget * 2 {
                return true
            }
        }
    }
}
