import Foundation
import Glibc
import LogStore

/// A wait in a test took longer than its bound: the test fails instead of hanging the suite.
struct TimeLimitExceeded: Error, CustomStringConvertible {
    /// The bound as the test wrote it; the wait lasted that times ``TimeScale/factor``.
    let seconds: Double
    var description: String {
        TimeScale.factor == 1
            ? "gave up after \(seconds) s" : "gave up after \(TimeScale.scaled(seconds)) s (\(seconds) s × time scale \(TimeScale.factor))"
    }
}

/// Runs `body`, throwing ``TimeLimitExceeded`` when it takes longer than `seconds` (stretched by
/// ``TimeScale``; a stuck body
/// is left behind: see ``withinDeadline(seconds:_:)``).
func withinTimeLimit<T: Sendable>(
    seconds: Double = 30, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard let value = try await withinDeadline(seconds: seconds, body) else { throw TimeLimitExceeded(seconds: seconds) }
    return value
}

/// The events of `stream` until it ends or `count` have arrived, within `seconds`.
func collect(
    _ stream: AsyncStream<LogStore.Event>, upTo count: Int = .max, seconds: Double = 30
) async throws -> [LogStore.Event] {
    try await withinTimeLimit(seconds: seconds) {
        var events: [LogStore.Event] = []
        for await event in stream {
            events.append(event)
            if events.count >= count { break }
        }
        return events
    }
}

/// Calls `check` every 5 ms on a thread of its own (not Swift's cooperative pool, which other
/// tests may keep busy) until it returns `true` or `seconds` (stretched by ``TimeScale``) pass;
/// returns the state it built.
func watchOnThread<State: Sendable>(
    seconds: Double, initial: State? = nil, _ check: @escaping @Sendable (inout State) throws -> Bool
) async throws -> State where State: ExpressibleByArrayLiteral {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            var state: State = initial ?? []
            let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
            do {
                while try !check(&state), Date() < deadline { usleep(5_000) }
                continuation.resume(returning: state)
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.start()
    }
}

/// Runs blocking `work` (a logging loop that waits for room, as producers in a server do) on a
/// thread of its own and returns its result, so the loop does not hold one of the cooperative
/// pool's few threads, which every other test running in parallel needs.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
