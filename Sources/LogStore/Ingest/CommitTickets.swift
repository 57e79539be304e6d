import Dispatch
import Synchronization

/// Who waits for which event to be committed: every accepted event has a ticket (its place in
/// the buffer), and a flush, a `.synchronous` call or the exit drain waits for one.
///
/// The writer moves ``committedTicket`` forward after each commit, fails the waiters of a
/// commit that failed, and, once the database is found damaged, fails every wait at once.
final class CommitTickets: Sendable {
    private let state = Mutex(State())

    private struct State {
        var flushWaiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var synchronousWaiters: [(ticket: UInt64, semaphore: DispatchSemaphore)] = []
        var committedTicket: UInt64 = 0
        /// Set when a commit found the database damaged: nothing is committed any more, every
        /// event is dropped and counted, and waiting for a commit fails with this at once.
        var damage: LogStoreError?
        /// A caller waits for a commit: the wait after a failed commit ends sooner for it
        /// (``StoreWriter`` retries after one save interval).
        var isRetryRequested = false
        var isStopped = false
        /// Why the writer stopped with events uncommitted, for waits that come after.
        var finalError: LogStoreError?
    }

    /// The highest ticket committed so far.
    var committedTicket: UInt64 { state.withLock { $0.committedTicket } }

    /// The damage a commit found, if any (nothing is written any more).
    var damage: LogStoreError? { state.withLock { $0.damage } }

    /// Whether a caller waits for a commit; reading it clears it (a new round of the writer
    /// answers it).
    func takeRetryRequest() -> Bool {
        state.withLock { state in
            defer { state.isRetryRequested = false }
            return state.isRetryRequested
        }
    }

    /// Whether a caller waits for a commit, left as it is.
    var isRetryRequested: Bool { state.withLock { $0.isRetryRequested } }

    /// A semaphore signalled once `ticket` is committed (or its commit failed, or the writer
    /// stopped); `nil` when that already happened. The caller wakes the writer.
    func semaphore(forTicket ticket: UInt64) -> DispatchSemaphore? {
        let semaphore = DispatchSemaphore(value: 0)
        let alreadyDone = state.withLock { state -> Bool in
            if state.committedTicket >= ticket || state.isStopped || state.damage != nil { return true }
            state.synchronousWaiters.append((ticket, semaphore))
            state.isRetryRequested = true
            return false
        }
        return alreadyDone ? nil : semaphore
    }

    /// Suspends until `ticket` and all before it are committed; `wake` is called when the wait
    /// begins (the writer must run to end it).
    ///
    /// - Throws: the commit's failure, the damage, or why the writer stopped.
    func wait(upTo ticket: UInt64, wake: () -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Result<Bool, LogStoreError> in
                // A damaged store fails every flush: what is logged into it is dropped.
                if let damage = state.damage { return .failure(damage) }
                if state.committedTicket >= ticket { return .success(true) }
                if state.isStopped { return .failure(state.finalError ?? .closed) }
                state.flushWaiters.append((ticket, continuation))
                state.isRetryRequested = true
                return .success(false)
            }
            switch outcome {
            case .success(true): continuation.resume()
            case .success(false): wake()
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    /// Notes that every ticket up to `ticket` is committed and ends their waits.
    func committed(upTo ticket: UInt64) {
        let waiters = state.withLock { state in
            state.committedTicket = max(state.committedTicket, ticket)
            return Self.removeWaiters(upTo: state.committedTicket, from: &state)
        }
        for waiter in waiters.flushes { waiter.resume() }
        for semaphore in waiters.synchronous { semaphore.signal() }
    }

    /// Ends the waits for tickets up to `ticket` with `error`.
    func fail(upTo ticket: UInt64, with error: LogStoreError) {
        let waiters = state.withLock { Self.removeWaiters(upTo: ticket, from: &$0) }
        for waiter in waiters.flushes { waiter.resume(throwing: error) }
        for semaphore in waiters.synchronous { semaphore.signal() }
    }

    /// Records the damage: from now on every wait fails with it at once. `false` when it was
    /// recorded already. The waits already open are failed by the caller
    /// (``fail(upTo:with:)``), once it has reported the damage.
    func recordDamage(_ damage: LogStoreError) -> Bool {
        state.withLock { state -> Bool in
            guard state.damage == nil else { return false }
            state.damage = damage
            return true
        }
    }

    /// The writer stopped: every wait still open ends, with `finalError` (or ``LogStoreError/closed``),
    /// and so does every later one.
    func stop(finalError: LogStoreError?) {
        let waiters = state.withLock { state in
            state.isStopped = true
            state.finalError = finalError
            return Self.removeWaiters(upTo: .max, from: &state)
        }
        for waiter in waiters.flushes { waiter.resume(throwing: finalError ?? LogStoreError.closed) }
        for semaphore in waiters.synchronous { semaphore.signal() }
    }

    /// The error the writer stopped with, if events were left uncommitted.
    var finalError: LogStoreError? { state.withLock { $0.finalError } }

    private static func removeWaiters(
        upTo ticket: UInt64, from state: inout State
    ) -> (flushes: [CheckedContinuation<Void, any Error>], synchronous: [DispatchSemaphore]) {
        let flushes = state.flushWaiters.filter { $0.ticket <= ticket }.map(\.continuation)
        state.flushWaiters.removeAll { $0.ticket <= ticket }
        let synchronous = state.synchronousWaiters.filter { $0.ticket <= ticket }.map(\.semaphore)
        state.synchronousWaiters.removeAll { $0.ticket <= ticket }
        return (flushes, synchronous)
    }
}
