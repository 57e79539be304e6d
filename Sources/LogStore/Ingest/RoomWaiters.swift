import Dispatch
import Synchronization

/// Producers waiting for room in the ingestion buffer under
/// ``LogStore/OverflowPolicy/waitForSpace``, woken each time the writer takes a batch: threads
/// blocked on a semaphore (the blocking logging calls) and suspended tasks (the async ones).
final class RoomWaiters: Sendable {
    /// One semaphore per blocked thread: a signal that comes after its wait timed out stays with
    /// that semaphore, instead of letting a later wait return at once.
    private let blocked = Mutex<[DispatchSemaphore]>([])
    private let suspended = Mutex(Suspended())

    private struct Suspended {
        /// Incremented by every take: a task that read it before finding the buffer full knows
        /// from a changed value that room was made meanwhile, so no wake-up is ever lost.
        var generation: UInt64 = 0
        var continuations: [CheckedContinuation<Void, Never>] = []
    }

    /// Blocks until the next take, or briefly, so the caller can try again.
    func wait() {
        let semaphore = DispatchSemaphore(value: 0)
        blocked.withLock { $0.append(semaphore) }
        if semaphore.wait(timeout: .now() + .milliseconds(10)) == .timedOut {
            blocked.withLock { waiting in waiting.removeAll { $0 === semaphore } }
        }
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
        let threads = blocked.withLock { waiting in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        for semaphore in threads { semaphore.signal() }
        let continuations = suspended.withLock { suspended in
            suspended.generation &+= 1
            defer { suspended.continuations.removeAll() }
            return suspended.continuations
        }
        for continuation in continuations { continuation.resume() }
    }
}
