import Dispatch
import Synchronization

/// Something that happens once (the loop thread ended, the last handler task returned), and
/// waits for it that give up after a while: ``HTTPServer/stop()`` must return even if a handler
/// ignores cancellation.
final class HTTPCompletionSignal: Sendable {
    private struct State {
        var isComplete = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    /// Guards the flag and the waiters; no continuation is resumed while it is held.
    private let state = Mutex(State())

    /// Whether it happened.
    var isComplete: Bool { state.withLock { $0.isComplete } }

    /// Marks it happened and wakes every wait; later calls do nothing.
    func complete() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard !state.isComplete else { return [] }
            state.isComplete = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Waits until it happened or `deadline` passed.
    /// - Returns: whether it happened.
    func wait(until deadline: DispatchTime) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = state.withLock { state -> Int? in
                guard !state.isComplete else { return nil }
                defer { state.nextWaiter += 1 }
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume(returning: true) }
            // A timer, not a sleeping task: nothing is left behind once it fires, and it needs
            // no thread of the cooperative pool, which a stuck handler may be holding.
            DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume(returning: false)
            }
        }
    }
}
