import Foundation

/// The tests that keep both cores busy with other processes — killed children in a loop, a
/// ClickHouse cluster, a browser, several writer processes — take turns: one at a time. Run
/// side by side with each other and with everything else on a 2-core machine, they starved the
/// tests whose bounds are about time (a child's first line within 30 s, a slow client closed
/// within 8 s), which then failed for no fault of the code. A test waiting for its turn is
/// suspended, not spinning; its own bounds start once it has the turn.
actor HeavyTestGate {
    static let shared = HeavyTestGate()

    private var isTaken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        if !isTaken {
            isTaken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty {
            isTaken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Runs `body` when no other heavy test runs (``HeavyTestGate``).
func asHeavyTest<T>(_ body: () async throws -> T) async throws -> T {
    await HeavyTestGate.shared.take()
    do {
        let result = try await body()
        await HeavyTestGate.shared.give()
        return result
    } catch {
        await HeavyTestGate.shared.give()
        throw error
    }
}
