import Foundation

/// Makes the handover of a result from a thread to the task awaiting it visible to
/// ThreadSanitizer.
///
/// A `CheckedContinuation` orders the two: everything the thread wrote before `resume` happens
/// before the task reads the result. But when the thread resumes before the task has suspended,
/// the task takes the result on a fast path made of the runtime's atomics, which an
/// uninstrumented runtime does not show to ThreadSanitizer, and it reports the reads of what the
/// thread built (a store's `let` properties) as races. A lock taken on both sides adds the edge it
/// can see; it costs two uncontended lock operations per handover (an open, an export step).
final class ThreadHandover: Sendable {
    private let lock = NSLock()

    /// On the producing thread, after the result is complete and before `resume`.
    func publish() {
        lock.lock()
        lock.unlock()
    }

    /// On the task, once the continuation returned.
    func receive() {
        lock.lock()
        lock.unlock()
    }
}
