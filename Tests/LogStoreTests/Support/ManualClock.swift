import Dispatch
import Foundation
import Synchronization

@testable import LogStore

/// A clock that moves only when a test advances it: the store's dates, the sweep's schedule,
/// and its timers (the save interval, the retry back-off, the size checks, the network logger's
/// eviction) all read it. A test of a timeout advances past it instead of sleeping through it.
final class ManualClock: Sendable {
    private let state: Mutex<State>

    private struct State {
        var elapsed: Duration = .zero
        /// Threads blocked in a timed wait, woken once the clock passes their deadline.
        var threadWaits: [(deadline: Duration, semaphore: DispatchSemaphore)] = []
        /// Tasks in `sleep`, resumed once the clock passes their deadline.
        var sleeps: [(id: UUID, deadline: Duration, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let start: Date

    init(start: Date = Date(timeIntervalSince1970: 1_780_000_000)) {
        self.start = start
        self.state = Mutex(State())
    }

    /// The time elapsed since the start, as advanced so far.
    var elapsed: Duration { state.withLock { $0.elapsed } }

    /// The clock's date.
    var now: Date { start.addingTimeInterval(elapsed.seconds) }

    /// How many waits (a thread's or a task's) the clock holds now.
    var pendingWaits: Int { state.withLock { $0.threadWaits.count + $0.sleeps.count } }

    /// Waits (at most `seconds`, in real time) until the clock holds at least `count` waits: a
    /// wait begun after an advance would not see it, so a test advances once the store waits.
    func waitForWaits(_ count: Int = 1, seconds: Double = 30) async throws {
        try await waitFor(seconds: seconds) { self.pendingWaits >= count }
    }

    /// Moves the clock forward, waking every wait whose deadline it passes.
    func advance(by duration: Duration) {
        let (threads, tasks) = state.withLock { state in
            state.elapsed += duration
            let now = state.elapsed
            let threads = state.threadWaits.filter { $0.deadline <= now }.map(\.semaphore)
            state.threadWaits.removeAll { $0.deadline <= now }
            let tasks = state.sleeps.filter { $0.deadline <= now }.map(\.continuation)
            state.sleeps.removeAll { $0.deadline <= now }
            return (threads, tasks)
        }
        for semaphore in threads { semaphore.signal() }
        for continuation in tasks { continuation.resume() }
    }

    /// The store's time source on this clock.
    var timeSource: LogStore.TimeSource {
        LogStore.TimeSource(
            now: { [self] in now },
            sleep: { [self] duration in try await sleep(for: duration) },
            timer: StoreTimer(
                elapsed: { [self] in elapsed },
                wait: { [self] semaphore, timeout in wait(semaphore, timeout: timeout) },
                sleep: { [self] duration in try await sleep(for: duration) }))
    }

    /// Suspends until the clock has been advanced by `duration`, or the task is cancelled (the
    /// store cancels its schedule's sleep as it closes).
    private func sleep(for duration: Duration) async throws {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isDue = state.withLock { state -> Bool in
                    let deadline = state.elapsed + duration
                    guard deadline > state.elapsed, !Task.isCancelled else { return true }
                    state.sleeps.append((id, deadline, continuation))
                    return false
                }
                if isDue { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.sleeps.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleeps.remove(at: index).continuation
            }
            cancelled?.resume()
        }
        try Task.checkCancellation()
    }

    /// A thread's timed wait: woken by `semaphore`, or by an advance past the deadline.
    private func wait(_ semaphore: DispatchSemaphore, timeout: Duration) -> Bool {
        // The clock's wake-up signals the same semaphore a real wake-up does: the waiter cannot
        // tell them apart, so it asks the clock whether the deadline passed.
        let deadline = state.withLock { state -> Duration? in
            let deadline = state.elapsed + timeout
            guard deadline > state.elapsed else { return nil }
            state.threadWaits.append((deadline, semaphore))
            return deadline
        }
        // No time to wait: a signal already there is taken, as the system's wait does.
        guard let deadline else { return semaphore.wait(timeout: .now()) == .success }
        semaphore.wait()
        let passed = state.withLock { state -> Bool in
            let passed = state.elapsed >= deadline
            // Woken by a real signal: the clock no longer needs to wake this wait. Its signal may
            // already be on its way (taken out of the list just now): then it is a spurious
            // wake-up later, which every caller tolerates (they loop).
            if !passed { state.threadWaits.removeAll { $0.semaphore === semaphore && $0.deadline == deadline } }
            return passed
        }
        return !passed
    }
}
