import Foundation
import Synchronization

/// Producers that log at full speed, each on its own thread, until told to stop.
///
/// Threads, not tasks: a producer at full speed never suspends, and under
/// ``LogStore/OverflowPolicy/waitForSpace`` it blocks its thread while the buffer is full, so
/// four producer tasks would hold both threads of Swift's cooperative pool (2 CPUs here) for as
/// long as they run. The sweep and the benchmark's own sampling loops run on that pool; as tasks,
/// the producers would starve them and the figures would measure the starvation. An app logs from
/// its own threads as well as from tasks.
final class ProducerThreads<Result: Sendable>: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let currentPhase = Atomic<Int>(0)
    private let results = Mutex<[Int: Result]>([:])
    private let finished = Mutex<(count: Int, waiter: CheckedContinuation<Void, Never>?)>((0, nil))
    private let count: Int

    private init(count: Int) {
        self.count = count
    }

    /// Starts `count` threads named `name-0`, `name-1`, …, each running `body(index, producers)`
    /// until it returns (it should poll ``isStopped``).
    static func start(
        count: Int, name: String, body: @escaping @Sendable (Int, ProducerThreads<Result>) -> Result
    ) -> ProducerThreads<Result> {
        let producers = ProducerThreads(count: count)
        for index in 0..<count {
            let thread = Thread {
                let result = body(index, producers)
                producers.results.withLock { $0[index] = result }
                let waiter = producers.finished.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.count += 1
                    guard state.count == producers.count else { return nil }
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
        return producers
    }

    /// Whether the producers should return now.
    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// What the benchmark is doing now (it starts at 0), for producers that keep figures per
    /// phase.
    var phase: Int { currentPhase.load(ordering: .relaxed) }

    func enter(phase: Int) {
        currentPhase.store(phase, ordering: .relaxed)
    }

    /// Tells every producer to stop and returns their results, by index, once all returned.
    func stop() async -> [Result] {
        stopped.store(true, ordering: .relaxed)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isDone = finished.withLock { state -> Bool in
                guard state.count < count else { return true }
                state.waiter = continuation
                return false
            }
            if isDone { continuation.resume() }
        }
        return results.withLock { results in (0..<count).compactMap { results[$0] } }
    }
}
