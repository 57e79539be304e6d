import Synchronization

/// The writer's pipeline under load: while it commits one batch, the next is prepared in the
/// background (hashing, redaction, zlib), so the writer thread only runs SQLite.
///
/// The next preparation starts when the buffer's prepare threshold (half the wake threshold)
/// is crossed while a batch commits: by the writer itself when it was crossed before the
/// commit began, otherwise by the producer whose event crossed it
/// (``prepareNextWhileCommitting()``). Taking the next batch right after the current one was
/// taken found the buffer nearly empty, so under load the writer kept preparing inline,
/// between its transactions, while the other core waited.
final class BatchPipeline: Sendable {
    let preparer: BatchPreparer
    private let buffer: IngestBuffer
    private let state = Mutex(State())

    private struct State {
        var next: PendingBatch?
        /// Whether the writer commits a batch it may pipeline after.
        var isCommitting = false
        /// That batch's prepared tasks: their bodies count as stored for the next preparation
        /// (its reader cannot see them before they commit).
        var committingTasks: [TaskPreparation.PreparedTask?]?
    }

    init(preparer: BatchPreparer, buffer: IngestBuffer) {
        self.preparer = preparer
        self.buffer = buffer
    }

    /// Starts preparing the next batch in the background when the writer is committing one
    /// (and no preparation runs yet): called by the producer whose event crossed the buffer's
    /// prepare threshold.
    func prepareNextWhileCommitting() {
        state.withLock { state in
            guard state.next == nil, state.isCommitting else { return }
            state.next = preparer.startNext(afterCommitting: state.committingTasks)
        }
    }

    /// Whether a batch is being prepared in the background (or is ready).
    var hasPendingBatch: Bool { state.withLock { $0.next != nil } }

    /// Takes the batch being prepared in the background, if any.
    func takeNext() -> PendingBatch? {
        state.withLock { state in
            defer { state.next = nil }
            return state.next
        }
    }

    /// Marks `batch` as being committed, so the next batch's preparation starts as soon as
    /// the prepare threshold is crossed meanwhile; starts it now when it already is.
    func beginCommitting(_ batch: PreparedBatch) {
        state.withLock { state in
            state.isCommitting = true
            state.committingTasks = batch.tasks
            // Read after `isCommitting` is set: a producer crossing the threshold from now on
            // finds it set and starts the preparation itself.
            if state.next == nil && buffer.isPastPrepareThreshold {
                state.next = preparer.startNext(afterCommitting: batch.tasks)
            }
        }
    }

    /// Ends what ``beginCommitting(_:)`` began: producers no longer start preparations.
    func endCommitting() {
        state.withLock { state in
            state.isCommitting = false
            state.committingTasks = nil
        }
    }
}
