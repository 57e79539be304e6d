import Dispatch
import LogStore

/// Holds the writer inside `willHandleEvent` on its first event until `release()`, so a test
/// can act while a batch is known to be in flight (fill the buffer, queue a job behind it).
final class HeldWriter: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let isFirst = Recorder(true)
    /// The longest a writer stays held when the test never releases it (stretched by
    /// ``TimeScale``: a sanitized flood can take longer than a minute to fill the buffer).
    static let longestHold: Double = TimeScale.scaled(60)

    /// Installs the hold on `configuration`.
    func hold(_ configuration: inout LogStore.Configuration) {
        configuration.willHandleEvent = { [self] event in
            if isFirst.update({ first in defer { first = false }; return first }) {
                entered.signal()
                // Bounded: a test that fails before `release()` must not leave its store's close
                // (and the whole suite) waiting for this writer forever.
                _ = gate.wait(timeout: .now() + Self.longestHold)
            }
            return event
        }
    }

    /// Returns once the writer is held; throws when it is not within `seconds` (stretched by
    /// ``TimeScale``).
    func waitUntilHeld(seconds: Double = 30) async throws {
        let held = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [entered] in
                continuation.resume(returning: entered.wait(timeout: .now() + TimeScale.scaled(seconds)) == .success)
            }
        }
        guard held else { throw TimeLimitExceeded(seconds: seconds) }
    }

    /// Lets the writer go on.
    func release() {
        gate.signal()
    }
}
