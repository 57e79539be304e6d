import Foundation

/// Runs blocking `work` (a read from a child's pipe, a process wait) on a thread of its own, off
/// the cooperative pool, and fails with ``TimeLimitExceeded`` when it has not returned in
/// `seconds` (the thread is left behind).
func withTimeLimitOnThread<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withinTimeLimit(seconds: seconds) { try await onOwnThread(work) }
}
