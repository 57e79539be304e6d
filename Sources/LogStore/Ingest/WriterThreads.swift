import Glibc
import Synchronization

/// The threads that run the writer's work, and so the `willHandleEvent` and `onWriteError`
/// hooks: the writer thread and, while it prepares a batch, the background preparation's.
///
/// A logging call made from one of them must never wait for the writer (`.synchronous`, or
/// ``LogStore/OverflowPolicy/waitForSpace`` on a full buffer): the writer would be waiting for
/// itself. ``StoreCore/ingest(_:)`` asks ``isCurrent`` only on those waiting paths.
final class WriterThreads: Sendable {
    private let writer = Atomic<UInt>(0)
    private let preparing = Atomic<UInt>(0)

    /// Called first thing on the writer thread.
    func enterWriterThread() {
        writer.store(UInt(pthread_self()), ordering: .releasing)
    }

    /// Runs `body` (a background preparation) marked as the writer's work.
    func preparing<T>(_ body: () -> T) -> T {
        preparing.store(UInt(pthread_self()), ordering: .releasing)
        defer { preparing.store(0, ordering: .releasing) }
        return body()
    }

    /// Whether the calling thread is running the writer's work.
    var isCurrent: Bool {
        let current = UInt(pthread_self())
        return current == writer.load(ordering: .acquiring) || current == preparing.load(ordering: .acquiring)
    }
}
