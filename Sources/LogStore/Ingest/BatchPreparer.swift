import Dispatch
import Foundation
import Synchronization

/// What the writer commits next: events taken from the ingestion buffer, redacted and passed
/// through `willHandleEvent`, with their network tasks prepared (keys, heads, compression).
struct PreparedBatch: Sendable {
    var events: [LogStore.Event?] = []
    /// `tasks[i]` belongs to `events[i]` (nil for other events); nil when no task completed.
    var tasks: [TaskPreparation.PreparedTask?]?
    /// The ticket of the last event taken (0 when none was).
    var lastTicket: UInt64 = 0
    /// The buffer's count of dropped events when this batch was taken.
    var droppedCount: UInt64 = 0
    /// The estimated bytes of all of ``events`` (``LogStore/Event/estimatedSize``), as the
    /// buffer counted them; nil when `willHandleEvent` may have changed them.
    var estimatedBytes: Int?
    /// The messages laid out as rows with the batch (``PreparedMessages``).
    var messages = PreparedMessages()
    /// What the buffer counts in flight for this batch: released once it is committed or put back.
    var taken = IngestBuffer.Taken()

    /// Puts `earlier` (a failed commit's events, to retry) in front of this batch; their tasks
    /// are prepared again at commit.
    mutating func prepend(_ earlier: [LogStore.Event?]) {
        guard !earlier.isEmpty else { return }
        if let tasks { self.tasks = Array(repeating: nil, count: earlier.count) + tasks }
        messages.prepend(count: earlier.count)
        // The buffer counted them in this take, but the hook may have changed them since.
        estimatedBytes = nil
        events = earlier + events
    }
}

/// Turns what the ingestion buffer holds into a ``PreparedBatch``.
///
/// Under load the next batch is prepared in the background while the writer commits the current
/// one (``startNext(afterCommitting:)``, started by the writer or by the producer that crossed
/// the buffer's prepare threshold): redaction, hashing, JSON and zlib then run beside SQLite
/// instead of between its transactions. Only one background preparation runs at a time: the
/// writer waits for it before it commits, and no other starts before it is taken.
final class BatchPreparer: Sendable {
    private let buffer: IngestBuffer
    private let redaction: Redaction
    private let willHandleEvent: (@Sendable (LogStore.Event) -> LogStore.Event?)?
    private let bodySizeLimit: Int
    private let compressionLevel: Int?
    /// Opens the read-only connection for the background's lookups of stored bodies (nil for
    /// stores in memory: the background then compresses every body it has not just seen).
    private let openReader: (@Sendable () throws -> Connection)?
    /// Taken by the one background preparation running (so it never waits) and by ``close()``.
    private let reader = Mutex<BackgroundReader>(BackgroundReader())
    private let queue = DispatchQueue(label: "logstore-prepare")
    /// Called after each take, to wake producers waiting for room.
    private let didTake: @Sendable () -> Void
    /// Marks the background preparation as the writer's work (its hook may log).
    private let threads: WriterThreads

    init(
        buffer: IngestBuffer, configuration: LogStore.Configuration, blobSettings: BlobStore.Settings,
        openReader: (@Sendable () throws -> Connection)?, threads: WriterThreads,
        didTake: @escaping @Sendable () -> Void
    ) {
        self.threads = threads
        self.buffer = buffer
        self.redaction = configuration.redaction
        self.willHandleEvent = configuration.willHandleEvent
        self.bodySizeLimit = configuration.bodySizeLimit
        self.compressionLevel = blobSettings.isCompressionEnabled ? blobSettings.compressionLevel : nil
        self.openReader = openReader
        self.didTake = didTake
    }

    /// Takes and prepares what waits, on the writer's thread, looking stored bodies up on the
    /// writer's connection.
    func prepareNow(connection: Connection) -> PreparedBatch {
        prepare { keys in try BlobStore.storedKeys(among: keys, connection: connection) }
    }

    /// Takes what waits and prepares it in the background. `committing` are the prepared tasks
    /// of the batch the writer is committing: their bodies count as stored (the reader cannot
    /// see them yet).
    func startNext(afterCommitting committing: [TaskPreparation.PreparedTask?]?) -> PendingBatch {
        let pending = PendingBatch()
        queue.async { [self] in
            let inFlight = Set(committing.map(TaskPreparation.bodyKeys) ?? [])
            pending.fulfil(threads.preparing { prepare { keys in
                let unseen = keys.filter { !inFlight.contains($0) }
                let stored = try reader.withLock { reader -> Set<SHA1.Digest> in
                    // After close() nothing is committed any more, and no connection may open:
                    // it would outlive the store's close.
                    guard let openReader, !reader.isClosed else { return [] }
                    if reader.connection == nil { reader.connection = try openReader() }
                    guard let connection = reader.connection else { return [] }
                    return try BlobStore.storedKeys(among: unseen, connection: connection)
                }
                return stored.union(keys.filter { inFlight.contains($0) })
            } })
        }
        return pending
    }

    /// Frees a committed batch's events and hands its array back to the buffer, on the
    /// preparation's queue: releasing ten thousand events (their strings, their metadata) took
    /// ~5 % of the writer thread, the bottleneck under load, while the other core waited.
    /// `events` is left empty. Then their room in the buffer is freed (`taken`, which the
    /// writer retired) and `didFree` runs.
    func recycleInBackground(
        _ events: inout [LogStore.Event?], taken: IngestBuffer.Taken, didFree: @escaping @Sendable () -> Void
    ) {
        let retired = RetiredEvents(&events)
        queue.async { [buffer] in
            retired.recycle(into: buffer)
            buffer.free(taken)
            didFree()
        }
    }

    /// Closes the background's connection (the store is closing), after a lookup running on
    /// it; later preparations open none.
    func close() {
        reader.withLock { reader in
            reader.isClosed = true
            reader.connection?.close()
            reader.connection = nil
        }
    }

    private func prepare(storedKeys: ([SHA1.Digest]) throws -> Set<SHA1.Digest>) -> PreparedBatch {
        var batch = PreparedBatch(droppedCount: buffer.droppedCount)
        guard var taken = buffer.take() else { return batch }
        didTake()
        batch.lastTicket = taken.lastTicket
        batch.droppedCount = buffer.droppedCount
        batch.taken = taken.taken
        // Events put back after a failed commit were prepared then: they go first, as they are.
        let retry = taken.retry
        taken.retry = []
        batch = prepare(&taken, into: batch, storedKeys: storedKeys)
        batch.prepend(retry)
        return batch
    }

    private func prepare(
        _ taken: inout IngestBuffer.Batch, into batch: PreparedBatch,
        storedKeys: ([SHA1.Digest]) throws -> Set<SHA1.Digest>
    ) -> PreparedBatch {
        var batch = batch
        // A bridge's metadata becomes the store's first: everything after sees each message as
        // the store's own call would have made it.
        LogStore.Event.resolveDeferredMetadata(in: &taken.events)
        // Secrets go first: before the hook sees the event, before bodies are hashed.
        TaskPreparation.redactNetworkEvents(&taken.events, with: redaction)
        if let willHandleEvent {
            batch.events.reserveCapacity(taken.events.count)
            for case let event? in taken.events {
                if let handled = willHandleEvent(event) { batch.events.append(handled) }
            }
            buffer.recycle(&taken.events)
        } else {
            // The common case: commit the events as taken, without copying them.
            swap(&batch.events, &taken.events)
            batch.estimatedBytes = taken.taken.bytes
        }
        batch.messages = PreparedMessages(batch.events)
        guard batch.events.contains(where: Self.isCompletion) else {
            // NetworkLogger creations still have their heads to prepare.
            TaskPreparation.prepareCreationHeads(batch.events)
            return batch
        }
        var tasks = TaskPreparation.prepare(batch.events, bodySizeLimit: bodySizeLimit)
        if let compressionLevel {
            // A failed lookup only costs compression: the blob store keeps what is stored.
            let stored = (try? storedKeys(TaskPreparation.bodyKeys(tasks))) ?? []
            TaskPreparation.compressNewBodies(&tasks, stored: stored, level: compressionLevel)
        }
        batch.tasks = tasks
        return batch
    }
}

extension BatchPreparer {
    fileprivate static func isCompletion(_ event: LogStore.Event?) -> Bool {
        if case .networkTaskCompleted? = event { true } else { false }
    }
}

/// A batch being prepared in the background.
final class PendingBatch: Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private let batch = Mutex<PreparedBatch?>(nil)

    fileprivate func fulfil(_ prepared: PreparedBatch) {
        batch.withLock { $0 = prepared }
        ready.signal()
    }

    /// Whether the batch is prepared (``wait()`` would return at once).
    var isReady: Bool {
        guard ready.wait(timeout: .now()) == .success else { return false }
        ready.signal()
        return true
    }

    /// Blocks until the batch is prepared, and hands it over: a later call returns an empty
    /// batch at once. Moved out, not copied, so the caller holds the only reference to its
    /// events (a copy left here would make the caller's first mutation copy the array).
    func wait() -> PreparedBatch {
        ready.wait()
        ready.signal()  // a second wait returns at once
        return batch.withLock { batch in
            defer { batch = nil }
            return batch
        } ?? PreparedBatch()
    }
}

/// A committed batch's events on their way to the preparation queue, which frees them: moved in
/// under a lock, so that queue holds the only reference and the freeing happens there.
private final class RetiredEvents: Sendable {
    private let events: Mutex<[LogStore.Event?]>

    init(_ events: inout [LogStore.Event?]) {
        var moved: [LogStore.Event?] = []
        swap(&moved, &events)
        self.events = Mutex(moved)
    }

    func recycle(into buffer: IngestBuffer) {
        events.withLock { buffer.recycle(&$0) }
    }
}

/// The background preparation's read-only connection, opened at its first lookup of stored bodies.
private struct BackgroundReader {
    var connection: Connection?
    var isClosed = false
}
