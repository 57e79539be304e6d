import Synchronization

/// Wakes live tails when something may have been committed: the writer after each batch of
/// logged events, and ``DataVersionWatch`` when another connection (another process) committed.
///
/// A counter, not a queue of events: a tail only needs to know that it should read again, so a
/// slow tail costs no memory here however much is committed meanwhile.
final class CommitSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var isFinished = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Moves on with every ``notify()``: read it before reading the store, then wait after it,
    /// and a commit between the read and the wait is not missed.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Whether the store closed: waits return at once.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Something may have been committed: wakes every waiter.
    func notify() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The store closed: wakes every waiter, and later waits return at once.
    func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isFinished = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the generation has moved past `generation`, the signal finished, or the
    /// calling task is cancelled (at once when one of those already happened).
    func wait(after generation: UInt64) async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock the cancellation handler also takes: a cancellation
                // either finds the waiter registered or is seen here.
                let isDue = state.withLock { state -> Bool in
                    if state.generation != generation || state.isFinished || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if isDue { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
