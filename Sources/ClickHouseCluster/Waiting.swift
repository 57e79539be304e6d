import Dispatch

/// Bounded waits: every wait of the cluster ends, successfully or with its bound.
enum Waiting {
    /// Checks `condition` every `interval` until it holds or `seconds` have passed: whether it
    /// held. Measured on the real clock (these are real processes, not the store's time).
    static func until(
        seconds: Double, every interval: Duration = .milliseconds(50), _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            if try await condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: interval)
        }
    }

    /// Runs blocking `work` (a socket exchange, a wait for a process) on a Dispatch queue, off the
    /// cooperative pool, and returns its result.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}
