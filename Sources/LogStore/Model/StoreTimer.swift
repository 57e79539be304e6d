import Dispatch

/// The monotonic side of the store's clock (``LogStore/TimeSource``): what its timers measure
/// intervals with and what its own threads wait with — the save interval, the retry back-off,
/// the size checks, the network logger's eviction of forgotten tasks, the history merge's
/// retries.
///
/// The system's by default. Tests give a store a timer they advance by hand, so a test of a
/// timeout waits for no real time, and a test of a race does not pass merely because a sleep
/// was long enough.
struct StoreTimer: Sendable {
    /// The time elapsed since an origin fixed by the timer.
    let elapsed: @Sendable () -> Duration
    /// Blocks the calling thread until `semaphore` is signalled (`true`) or `timeout` of this
    /// timer has passed (`false`).
    let wait: @Sendable (_ semaphore: DispatchSemaphore, _ timeout: Duration) -> Bool
    /// Suspends the calling task for `duration` of this timer (throws when it is cancelled).
    let sleep: @Sendable (_ duration: Duration) async throws -> Void

    /// `ContinuousClock`, and a semaphore's own timed wait.
    static let system: StoreTimer = {
        let origin = ContinuousClock.now
        return StoreTimer(
            elapsed: { ContinuousClock.now - origin },
            wait: { semaphore, timeout in
                let nanoseconds = Int(clamping: timeout.nanoseconds)
                return semaphore.wait(timeout: .now() + .nanoseconds(max(nanoseconds, 0))) == .success
            },
            sleep: { try await Task.sleep(for: $0) })
    }()
}
