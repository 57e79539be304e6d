import Dispatch
import Synchronization

/// Producers waiting for room in the ingestion buffer under
/// ``LogStore/OverflowPolicy/waitForSpace``, woken each time the writer takes a batch: threads
/// blocked on a semaphore (the blocking logging calls) and suspended tasks (the async ones).
final class RoomWaiters: Sendable {
    private let count = Atomic<Int>(0)
    private let roomAvailable = DispatchSemaphore(value: 0)
    private let suspended = Mutex(Suspended())

    private struct Suspended {
        /// Incremented by every take: a task that read it before finding the buffer full knows
        /// from a changed value that room was made meanwhile, so no wake-up is ever lost.
        var generation: UInt64 = 0
        var continuations: [CheckedContinuation<Void, Never>] = []
    }

    /// Blocks until the next take, or briefly, so the caller can try again.
    func wait() {
        count.add(1, ordering: .relaxed)
        defer { count.subtract(1, ordering: .relaxed) }
        _ = roomAvailable.wait(timeout: .now() + .milliseconds(10))
    }

    /// The current take count; read it before appending, and pass it to ``waitForRoom(since:)``.
    var generation: UInt64 { suspended.withLock { $0.generation } }

    /// Suspends (without holding a thread) until the writer takes a batch after `generation`.
    func waitForRoom(since generation: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isStale = suspended.withLock { suspended -> Bool in
                guard suspended.generation == generation else { return true }
                suspended.continuations.append(continuation)
                return false
            }
            if isStale { continuation.resume() }
        }
    }

    /// Wakes every producer waiting now.
    func wakeAll() {
        for _ in 0..<count.load(ordering: .relaxed) { roomAvailable.signal() }
        let continuations = suspended.withLock { suspended in
            suspended.generation &+= 1
            defer { suspended.continuations.removeAll() }
            return suspended.continuations
        }
        for continuation in continuations { continuation.resume() }
    }
}
