import Dispatch
import Synchronization

/// Producers blocked for room in the ingestion buffer under
/// ``LogStore/OverflowPolicy/waitForSpace``, woken each time the writer takes a batch.
final class RoomWaiters: Sendable {
    private let count = Atomic<Int>(0)
    private let roomAvailable = DispatchSemaphore(value: 0)

    /// Blocks until the next take, or briefly, so the caller can try again.
    func wait() {
        count.add(1, ordering: .relaxed)
        defer { count.subtract(1, ordering: .relaxed) }
        _ = roomAvailable.wait(timeout: .now() + .milliseconds(10))
    }

    /// Wakes every producer waiting now.
    func wakeAll() {
        for _ in 0..<count.load(ordering: .relaxed) { roomAvailable.signal() }
    }
}
