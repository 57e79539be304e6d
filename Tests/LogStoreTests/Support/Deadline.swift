import Dispatch
import Synchronization

/// Runs `work` in an unstructured task and returns its result, or `nil` when it has not finished
/// `seconds` (stretched by ``TimeScale``) after the start. A deadlocked store makes the test fail instead of hanging: the
/// stuck task is left behind (a task group would wait for it).
func withinDeadline<T: Sendable>(
    seconds: Double, _ work: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
        let resumed = Mutex(false)
        let resume: @Sendable (Result<T?, any Error>) -> Void = { result in
            let isFirst = resumed.withLock { resumed -> Bool in
                defer { resumed = true }
                return !resumed
            }
            if isFirst { continuation.resume(with: result) }
        }
        Task.detached { resume(await Result<T?, any Error>(catching: { try await work() })) }
        DispatchQueue.global().asyncAfter(deadline: .now() + TimeScale.scaled(seconds)) { resume(.success(nil)) }
    }
    return outcome
}

/// Runs blocking `work` on a global queue (off the cooperative pool) within a deadline of
/// `seconds` (stretched by ``TimeScale``): whether it returned in time.
func returnsWithinDeadline(seconds: Double, _ work: @escaping @Sendable () -> Void) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let resumed = Mutex(false)
        let resume: @Sendable (Bool) -> Void = { value in
            let isFirst = resumed.withLock { resumed -> Bool in
                defer { resumed = true }
                return !resumed
            }
            if isFirst { continuation.resume(returning: value) }
        }
        DispatchQueue.global().async {
            work()
            resume(true)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + TimeScale.scaled(seconds)) { resume(false) }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
