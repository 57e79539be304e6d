import Dispatch
import Foundation
import Glibc
import Synchronization

/// The one writer: a dedicated thread that owns the write connection, drains the ingestion
/// buffer in batches (one transaction each, every save interval or sooner when many events
/// wait) and runs the store's other writes (`perform`) between batches, in order.
///
/// A dedicated thread, not a task: SQLite blocks, and Swift's cooperative pool is only as wide
/// as the CPU count, so a blocking writer there would stall every other task.
final class StoreWriter: Sendable {
    let buffer: IngestBuffer
    let broadcaster: EventBroadcaster
    /// Notified after every commit of logged events: what wakes live tails in this process.
    let commits = CommitSignal()
    private let database: Mutex<BatchWriter>
    private let control = Mutex(Control())
    private let wake = DispatchSemaphore(value: 0)
    private let roomWaiters: RoomWaiters
    private let saveInterval: Duration
    /// Whether the writer keeps the full-text index caught up (``SearchIndex``).
    private let indexesSearch: Bool
    private let preparer: BatchPreparer
    /// The next batch, being prepared in the background while the writer commits, and what
    /// starts it (see ``Pipeline``).
    private let pipeline = Mutex(Pipeline())
    /// The failures' counts, and which were reported already.
    private let failureLog: WriteFailureLog
    private let sizeWatch = Mutex<SizeWatch?>(nil)
    /// Whether the last size check found the store past the size at which it is swept (85 % of
    /// its limit): sweep steps then get more of the writer's time than logged events (see
    /// ``runUnorderedJobs(_:)``).
    private let isOverLimit = Atomic<Bool>(false)
    /// How long the last batch took to commit, in nanoseconds: the sweep sizes its steps by it.
    private let lastCommitNanoseconds = Atomic<Int64>(0)
    /// Called once the thread has stopped (`nil` once it has: later callers are called at once).
    private let finished = Mutex<[@Sendable () -> Void]?>([])
    /// The threads running the writer's work (and its hooks), where logging must not wait.
    let threads = WriterThreads()

    private struct Control {
        var jobs: [Job] = []
        var flushWaiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var synchronousWaiters: [(ticket: UInt64, semaphore: DispatchSemaphore)] = []
        var committedTicket: UInt64 = 0
        var isStopping = false
        /// Runs once the last batch is committed (or given up on), before the thread ends.
        var finalJob: (@Sendable (BatchWriter) -> Void)?
        var isStopped = false
        /// Set when a commit found the database damaged: nothing is committed any more, every
        /// event is dropped and counted, and waiting for a commit fails with this at once.
        var damage: LogStoreError?
        /// A caller waits for a commit (a flush, a `.synchronous` call, the exit drain): the
        /// wait after a failed commit ends sooner for it (``waitBeforeRetrying(for:)``).
        var isRetryRequested = false
        var finalError: LogStoreError?
    }

    /// The writer's pipeline under load: while it commits one batch, the next is prepared in the
    /// background (hashing, redaction, zlib), so the writer thread only runs SQLite.
    ///
    /// The next preparation starts when the buffer's prepare threshold (half the wake
    /// threshold) is crossed while a batch commits: by the writer itself when it was crossed
    /// before the commit began, otherwise by the producer whose event crossed it
    /// (``prepareNextWhileCommitting()``). Taking the next batch right after the
    /// current one was taken found the buffer nearly empty, so under load the writer kept
    /// preparing inline, between its transactions, while the other core waited.
    private struct Pipeline {
        var next: PendingBatch?
        /// Whether the writer commits a batch it may pipeline after.
        var isCommitting = false
        /// That batch's prepared tasks: their bodies count as stored for the next preparation
        /// (its reader cannot see them before they commit).
        var committingTasks: [TaskPreparation.PreparedTask?]?
    }

    private struct Job: Sendable {
        /// Whether the events accepted before the job must be committed before it runs.
        let isOrdered: Bool
        /// Runs the job, or its next step; `true` once it is finished.
        let run: @Sendable (BatchWriter) -> Bool
        let cancel: @Sendable () -> Void
        /// The queue that hands the job over is a `Mutex`, which ThreadSanitizer cannot see on
        /// Linux: this lets it see that what the job captured was built before it runs.
        let handover = ThreadHandover()

        /// Runs the job on the writer thread (see ``run``).
        func start(_ writer: BatchWriter) -> Bool {
            handover.receive()
            return run(writer)
        }
    }

    /// - Parameter openReader: opens a read-only connection for the background preparation's
    ///   lookups (nil for a store in memory).
    init(
        batchWriter: sending BatchWriter, buffer: IngestBuffer, configuration: LogStore.Configuration,
        openReader: (@Sendable () throws -> Connection)?
    ) {
        let blobSettings = batchWriter.blobs.settings
        self.database = Mutex(batchWriter)
        self.buffer = buffer
        self.broadcaster = EventBroadcaster()
        self.saveInterval = configuration.saveInterval
        self.indexesSearch = configuration.isSearchIndexEnabled
        self.failureLog = WriteFailureLog(onWriteError: configuration.onWriteError)
        let roomWaiters = RoomWaiters()
        self.roomWaiters = roomWaiters
        self.preparer = BatchPreparer(
            buffer: buffer, configuration: configuration, blobSettings: blobSettings, openReader: openReader,
            threads: threads, didTake: { roomWaiters.wakeAll() })
        database.withLock { writer in
            writer.onFileDeletionFailures = { [weak self] failures in self?.reportFileDeletionFailures(failures) }
        }
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "logstore-writer"
        thread.start()
    }

    /// After commits, calls `onOverLimit` when the store has grown past `limit` bytes (checked
    /// every ``SizeWatch/interval`` at most).
    func watchSize(limit: Int64, onOverLimit: @escaping @Sendable () -> Void) {
        sizeWatch.withLock { $0 = SizeWatch(limit: limit, onOverLimit: onOverLimit) }
    }

    // MARK: Producers

    /// Asks the writer to start a batch now: called by the producer whose event crossed the
    /// wake threshold.
    func wakeUp() {
        prepareNextWhileCommitting()
        wake.signal()
    }

    /// Starts preparing the next batch in the background when the writer is committing one
    /// (and no preparation runs yet): called by the producer whose event crossed the buffer's
    /// prepare threshold.
    func prepareNextWhileCommitting() {
        pipeline.withLock { pipeline in
            guard pipeline.next == nil, pipeline.isCommitting else { return }
            pipeline.next = preparer.startNext(afterCommitting: pipeline.committingTasks)
        }
    }

    /// Blocks the calling thread until the writer has taken a batch (room in the buffer), or
    /// briefly, so the caller can try again: the ``LogStore/OverflowPolicy/waitForSpace`` policy.
    func waitForSpace() {
        wake.signal()
        roomWaiters.wait()
    }

    /// Suspends, holding no thread, until the writer has taken a batch after `generation`
    /// (read with ``roomGeneration`` before the append that found the buffer full).
    func waitForSpace(since generation: UInt64) async {
        wake.signal()
        await roomWaiters.waitForRoom(since: generation)
    }

    /// The number of takes so far; see ``waitForSpace(since:)``.
    var roomGeneration: UInt64 { roomWaiters.generation }

    /// Blocks the calling thread until the event with `ticket` is committed (or its commit
    /// failed): the `.synchronous` option.
    func waitUntilCommitted(_ ticket: UInt64) {
        // The writer's own hooks logging: waiting would be waiting for itself.
        guard !threads.isCurrent else { return }
        commitSignal(forTicket: ticket)?.wait()
    }

    /// Wakes the writer and returns a semaphore signalled once `ticket` is committed (or its
    /// commit failed, or the writer stopped); `nil` when that already happened.
    func commitSignal(forTicket ticket: UInt64) -> DispatchSemaphore? {
        let semaphore = DispatchSemaphore(value: 0)
        let alreadyDone = control.withLock { control -> Bool in
            if control.committedTicket >= ticket || control.isStopped || control.damage != nil { return true }
            control.synchronousWaiters.append((ticket, semaphore))
            control.isRetryRequested = true
            return false
        }
        guard !alreadyDone else { return nil }
        wake.signal()
        return semaphore
    }

    // MARK: The store's async API

    /// Returns when every event accepted before the call is committed.
    ///
    /// - Throws: ``LogStoreError/writeFailed(_:)`` when the batch holding them failed to
    ///   commit (they stay queued and are retried).
    func flush() async throws {
        try await waitUntilCommitted(upTo: buffer.lastTicket)
    }

    /// Suspends until the event with `ticket` and all before it are committed.
    ///
    /// - Throws: ``LogStoreError/writeFailed(_:)`` when their batch failed to commit.
    func waitUntilCommitted(upTo ticket: UInt64) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = control.withLock { control -> Result<Bool, LogStoreError> in
                // A damaged store fails every flush: what is logged into it is dropped.
                if let damage = control.damage { return .failure(damage) }
                if control.committedTicket >= ticket { return .success(true) }
                if control.isStopped { return .failure(control.finalError ?? .closed) }
                control.flushWaiters.append((ticket, continuation))
                control.isRetryRequested = true
                return .success(false)
            }
            switch outcome {
            case .success(true): continuation.resume()
            case .success(false): wake.signal()
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    /// Runs `work` on the writer thread with the write connection, after the events accepted
    /// before the call are committed, or, when not `ordered`, between two batches as soon as
    /// the current one is committed (the sweep's steps: they do not depend on what was logged,
    /// and forcing a commit before each would cut ingestion into small transactions).
    func perform<T: Sendable>(
        ordered: Bool = true, _ work: @escaping @Sendable (BatchWriter) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                isOrdered: ordered,
                run: { writer in
                    continuation.resume(with: Result { try work(writer) })
                    return true
                },
                cancel: { continuation.resume(throwing: LogStoreError.closed) })
            enqueue(job)
        }
    }

    /// Queues a job for the writer thread, or cancels it when the writer is stopping.
    private func enqueue(_ job: Job) {
        job.handover.publish()
        let accepted = control.withLock { control -> Bool in
            guard !control.isStopped, !control.isStopping else { return false }
            control.jobs.append(job)
            return true
        }
        if accepted { wake.signal() } else { job.cancel() }
    }

    /// Runs `step` on the writer thread once per round, between two batches of logged events,
    /// until it returns `true` (finished) or throws: long maintenance (the sweep) in bounded
    /// steps, with no wait between them but the writer's own batches.
    func performSteps(_ step: @escaping @Sendable (BatchWriter) throws -> Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let job = Job(
                isOrdered: false,
                run: { writer in
                    do {
                        guard try step(writer) else { return false }
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                    return true
                },
                cancel: { continuation.resume(throwing: LogStoreError.closed) })
            enqueue(job)
        }
    }

    /// How long the last transaction of logged events took to commit (the longest of its round).
    var lastCommitDuration: Duration { .nanoseconds(lastCommitNanoseconds.load(ordering: .relaxed)) }

    /// Whether a commit found the database damaged (nothing is written any more).
    var isDamaged: Bool { control.withLock { $0.damage != nil } }

    /// Write failures since the store opened, and the latest one.
    var writeErrors: (count: Int, last: LogStoreError?) { failureLog.failures }

    /// Events set aside because they failed to commit on their own, and body files that could
    /// not be deleted, since the store opened.
    var setAsideCounts: (rejectedEvents: Int, blobDeletionFailures: Int) { failureLog.setAside }

    /// Drains everything, runs `finally` with the connection (checkpoint), then stops the thread,
    /// and calls `done` on the writer thread as it ends (at once when it already has). Blocks
    /// nothing: a store released without `close()` stops its writer from any thread.
    ///
    /// `done` gets the last write error when events could not be committed before stopping
    /// (only the call that asked first; later ones get `nil`).
    func stop(
        finally: @escaping @Sendable (BatchWriter) -> Void, then done: @escaping @Sendable (LogStoreError?) -> Void
    ) {
        buffer.close()
        let accepted = control.withLock { control -> Bool in
            guard !control.isStopping else { return false }
            control.isStopping = true
            control.finalJob = finally
            return true
        }
        wake.signal()
        let report: @Sendable () -> Void = { [self] in
            done(accepted ? control.withLock { $0.finalError } : nil)
        }
        let isFinished = finished.withLock { waiters -> Bool in
            guard waiters != nil else { return true }
            waiters?.append(report)
            return false
        }
        if isFinished { report() }
    }

    // MARK: The writer thread

    private func run() {
        // A name set before the start does not reach the kernel on Linux: set here, the writer is
        // itself in `top -H`, `perf` and the debugger instead of the queue that started it.
        Thread.current.name = "logstore-writer"
        threads.enterWriterThread()
        var consecutiveFailures = 0
        while true {
            if consecutiveFailures > 0 {
                waitBeforeRetrying(for: backoff(consecutiveFailures))
            } else {
                _ = wake.wait(timeout: .now() + Self.dispatchInterval(saveInterval))
            }
            while true {
                let outcome = writePendingEvents()
                consecutiveFailures = outcome == .failed ? consecutiveFailures + 1 : 0
                let ranJobs = runJobs()
                if outcome == .failed { break }
                let indexedMore = indexSearch(isBusy: buffer.isPastWakeThreshold || ranJobs || hasPendingBatch)
                if !buffer.isPastWakeThreshold && !ranJobs && !hasPendingBatch && !indexedMore { break }
                // Steps of long jobs keep this loop going; closing must still end it.
                if control.withLock({ $0.isStopping }) && !buffer.hasWaitingEvents && !hasPendingBatch { break }
            }
            let isStopping = control.withLock { $0.isStopping }
            if isStopping && !hasPendingBatch {
                // Closing gives up on events put back after three failed rounds in a row.
                if consecutiveFailures >= 3 { break }
                if consecutiveFailures == 0 && !buffer.hasWaitingEvents { break }
            }
        }
        finishThread(failed: consecutiveFailures > 0 || control.withLock { $0.damage != nil })
    }

    /// Waits `delay` after a failed commit before the next attempt. Wake-ups alone do not
    /// shorten it: producers waiting for room and a full buffer signal the writer, and each used
    /// to bring an immediate retry, so a store that failed every commit kept the writer at
    /// 100 % CPU. A caller waiting for a commit (a flush, a `.synchronous` call, the exit drain,
    /// which waits 1.5 s at most) brings the retry forward, to one save interval after the
    /// failure at the soonest. Queued jobs still run meanwhile, and closing ends the wait (the
    /// closing rounds then retry at once, a few times at most).
    private func waitBeforeRetrying(for delay: Duration) {
        let failedAt = ContinuousClock.now
        while true {
            let (isStopping, isRetryRequested) = control.withLock { ($0.isStopping, $0.isRetryRequested) }
            if isStopping { return }
            let end = failedAt + (isRetryRequested ? min(delay, saveInterval) : delay)
            let remaining = end - ContinuousClock.now
            guard remaining > .zero else { return }
            _ = wake.wait(timeout: .now() + Self.dispatchInterval(remaining))
            if control.withLock({ !$0.jobs.isEmpty }) { _ = runJobs() }
        }
    }

    private var hasPendingBatch: Bool { pipeline.withLock { $0.next != nil } }

    /// Takes the batch being prepared in the background, if any.
    private func takeNextBatch() -> PendingBatch? {
        pipeline.withLock { pipeline in
            defer { pipeline.next = nil }
            return pipeline.next
        }
    }

    /// Marks `batch` as being committed, so the next batch's preparation starts as soon as
    /// the prepare threshold is crossed meanwhile; starts it now when it already is.
    private func beginCommitting(_ batch: PreparedBatch) {
        pipeline.withLock { pipeline in
            pipeline.isCommitting = true
            pipeline.committingTasks = batch.tasks
            // Read after `committing` is set: a producer crossing the threshold from now on
            // finds it set and starts the preparation itself.
            if pipeline.next == nil && buffer.isPastPrepareThreshold {
                pipeline.next = preparer.startNext(afterCommitting: batch.tasks)
            }
        }
    }

    /// Ends what ``beginCommitting(_:)`` began: producers no longer start preparations.
    private func endCommitting() {
        pipeline.withLock { pipeline in
            pipeline.isCommitting = false
            pipeline.committingTasks = nil
        }
    }

    /// The most index steps between two rounds of a busy writer (~100 ms each).
    private static let busyIndexSteps = 2

    /// Steps of the full-text index when they are due: one whenever it lags and the writer is
    /// idle; while the writer is busy, as many as bring it back within
    /// ``SearchIndex/maximumLag`` (a round can commit more events than one step indexes, and a
    /// lag that only grew would make every search read more), at most ``busyIndexSteps``.
    ///
    /// - Returns: whether messages remain unindexed after a step (the caller loops again).
    private func indexSearch(isBusy: Bool) -> Bool {
        guard indexesSearch, !failureLog.isIndexDamaged, control.withLock({ $0.damage == nil }) else { return false }
        return database.withLock { writer -> Bool in
            do {
                var steps = 0
                let roundStart = ContinuousClock.now
                var lag = try SearchIndex.lag(writer.connection)
                while true {
                    guard lag > 0, !isBusy || lag > SearchIndex.maximumLag else { return false }
                    let step = try SearchIndex.step(writer)
                    failureLog.succeeded(.indexStep)
                    steps += 1
                    lag = step.remaining
                    guard step.covered > 0, step.remaining > 0 else { return false }
                    if !isBusy || steps >= Self.busyIndexSteps || ContinuousClock.now - roundStart >= SearchIndex.stepTarget * 2 {
                        return true
                    }
                }
            } catch {
                // A damaged index (FTS5's own pages: derived data, the messages may be sound)
                // stops indexing, not logging; reported once, and searches report it too. Any
                // other damage a step meets is the database's, as if a commit had met it.
                let isIndexOnly = (error as? DatabaseError)?.isVirtualTableCorrupt == true
                if let damage = DatabaseDamage.error(for: error, database: writer.connection.path, inSearchIndex: isIndexOnly) {
                    if isIndexOnly {
                        failureLog.searchIndexDamaged(damage)
                    } else {
                        reportDamage(damage)
                    }
                    return false
                }
                // The index only falls behind (searches still read the rest): say so once per
                // cause, and try again on the next round.
                failureLog.failed(.indexStep, LogStoreError(error))
                return false
            }
        }
    }

    private func finishThread(failed: Bool) {
        _ = runJobs()
        preparer.close()
        if let finalJob = control.withLock({ $0.finalJob }) {
            database.withLock { finalJob($0) }
        }
        let (jobs, flushWaiters, synchronousWaiters, finalError) = control.withLock { control in
            control.isStopped = true
            if failed { control.finalError = failureLog.failures.last }
            defer {
                control.jobs.removeAll()
                control.flushWaiters.removeAll()
                control.synchronousWaiters.removeAll()
            }
            return (control.jobs, control.flushWaiters, control.synchronousWaiters, control.finalError)
        }
        for job in jobs { job.cancel() }
        for waiter in flushWaiters { waiter.continuation.resume(throwing: finalError ?? LogStoreError.closed) }
        for waiter in synchronousWaiters { waiter.semaphore.signal() }
        broadcaster.finish()
        let waiters = finished.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter() }
    }

    private enum Outcome { case idle, wrote, failed }

    /// Commits what waits: the batch prepared in the background, if any, else one prepared now.
    /// With `pipelining` and many events still waiting, the next batch is prepared in the
    /// background meanwhile.
    private func writePendingEvents(pipelining: Bool = true) -> Outcome {
        control.withLock { $0.isRetryRequested = false }
        return database.withLock { writer -> Outcome in
            let pendingBatch = takeNextBatch()
            // While the next batch is still being prepared, the writer would only wait.
            if let pendingBatch, !pendingBatch.isReady { runUnorderedJobs(writer) }
            var batch = pendingBatch?.wait() ?? preparer.prepareNow(connection: writer.connection)
            if pipelining { beginCommitting(batch) }
            defer { if pipelining { endCommitting() } }
            if let damage = control.withLock({ $0.damage }) {
                // Nothing commits into a damaged database: what was accepted before the damage
                // was found is dropped, and so are its waiters.
                buffer.drop(batch.events, releasing: batch.taken)
                failWaiters(upTo: batch.lastTicket, with: damage)
                return .idle
            }
            var events = batch.events
            batch.events = []
            let prepared = batch.tasks
            let lastTicket = batch.lastTicket
            let dropped = batch.droppedCount
            guard !events.isEmpty || lastTicket > control.withLock({ $0.committedTicket })
                || dropped > writer.reportedDropCount
            else {
                buffer.release(batch.taken)
                return .idle
            }

            var notice = dropped > writer.reportedDropCount
                ? Self.dropNotice(
                    count: dropped - writer.reportedDropCount, capacity: buffer.capacity, bytes: buffer.byteCapacity)
                : nil
            writer.preparedMessages = batch.messages
            batch.messages = PreparedMessages()
            defer { writer.preparedMessages = PreparedMessages() }
            // The longest transaction of the round, steps of other jobs between them excluded.
            var longestCommit: Duration = .zero
            var committedNotice: LogStore.Event.MessageCreated?
            var rejected: [BatchWriter.RejectedEvent] = []
            var start = 0
            repeat {
                let end = writer.transactionEnd(events, from: start, batchBytes: batch.estimatedBytes)
                let commitStart = ContinuousClock.now
                let outcome = writer.commitSettingAside(
                    events, start..<end, prepared: prepared, dropNotice: notice, rejected: &rejected)
                if outcome.noticeCommitted {
                    committedNotice = notice
                    notice = nil
                    writer.reportedDropCount = dropped
                }
                if let failure = outcome.failure {
                    // What committed stays committed (and is published); the rest goes back to
                    // the head of the buffer, where it counts against the bound and waits for
                    // the retry.
                    writer.recordRound(failed: true)
                    let failed = Array(events[failure.index...])
                    events.removeSubrange(failure.index...)
                    publish(events, notice: committedNotice, without: rejected)
                    // Counted before the release: once an event is no longer pending, info()
                    // finds it stored, dropped or set aside.
                    reportRejected(rejected)
                    if let damage = DatabaseDamage.error(for: failure.error, database: writer.connection.path, inSearchIndex: false) {
                        drop(failed[...], taken: batch.taken)
                        reportDamage(damage)
                        return .idle
                    }
                    putBack(failed[...], taken: batch.taken)
                    reportFailure(failure.error, upTo: lastTicket)
                    return .failed
                }
                longestCommit = max(longestCommit, ContinuousClock.now - commitStart)
                // After every transaction, not once a round: a round under load holds many, and a
                // small store fills its limit within one.
                checkSize(writer)
                start = end
                // A round can hold many transactions: unordered jobs (the sweep's steps) take
                // their turns between them, not only after the whole round.
                if start < events.count { runUnorderedJobs(writer) }
            } while start < events.count
            writer.recordRound(failed: false)
            reportRejected(rejected)
            // Still held in memory until the background frees them, then room for more.
            buffer.retire(batch.taken)
            lastCommitNanoseconds.store(longestCommit.nanoseconds, ordering: .relaxed)
            publish(events, notice: committedNotice, without: rejected)
            preparer.recycleInBackground(&events, taken: batch.taken) { [roomWaiters] in roomWaiters.wakeAll() }
            reportCommit(upTo: lastTicket)
            return .wrote
        }
    }

    /// Publishes committed events to the subscribers: the drop notice first, then `events` but
    /// the ones set aside (never stored).
    private func publish(
        _ events: [LogStore.Event?], notice: LogStore.Event.MessageCreated?, without rejected: [BatchWriter.RejectedEvent]
    ) {
        guard broadcaster.hasSubscribers else { return }
        var published = notice.map { [LogStore.Event.messageStored($0)] } ?? []
        if rejected.isEmpty {
            published.append(contentsOf: events.lazy.compactMap { $0 })
        } else {
            let setAside = Set(rejected.map(\.index))
            published.append(contentsOf: events.indices.lazy.filter { !setAside.contains($0) }.compactMap { events[$0] })
        }
        broadcaster.publish(published)
    }

    /// Puts the events of a failed commit back at the head of the buffer, with those of the
    /// batch prepared meanwhile (newer: they wait behind), releasing what both took.
    private func putBack(_ failed: ArraySlice<LogStore.Event?>, taken: IngestBuffer.Taken) {
        let (events, taken) = withNextBatch(failed, taken: taken)
        buffer.putBack(events, releasing: taken)
    }

    /// Drops the events of a commit that met a damaged database, with those of the batch
    /// prepared meanwhile, counted as dropped.
    private func drop(_ failed: ArraySlice<LogStore.Event?>, taken: IngestBuffer.Taken) {
        let (events, taken) = withNextBatch(failed, taken: taken)
        buffer.drop(events, releasing: taken)
    }

    /// The events of a failed commit followed by those of the batch prepared meanwhile, and what
    /// both took from the buffer.
    private func withNextBatch(
        _ failed: ArraySlice<LogStore.Event?>, taken: IngestBuffer.Taken
    ) -> (events: [LogStore.Event?], taken: IngestBuffer.Taken) {
        var events = Array(failed)
        var taken = taken
        // No preparation may start after this one is taken: it would hold newer events.
        endCommitting()
        if let next = takeNextBatch() {
            let batch = next.wait()
            events += batch.events
            taken = taken + batch.taken
        }
        return (events, taken)
    }

    /// Reports the damage once (``Control/damage``), fails the waiters, and has the buffer drop
    /// every event from now on.
    private func reportDamage(_ damage: LogStoreError) {
        guard control.withLock({ $0.damage == nil }) else { return }
        buffer.dropEverything()
        control.withLock { $0.damage = damage }
        failureLog.databaseDamaged(damage)
        failWaiters(upTo: .max, with: damage)
        roomWaiters.wakeAll()
    }

    private func checkSize(_ writer: BatchWriter) {
        let watch = sizeWatch.withLock { watch -> SizeWatch? in
            guard watch?.isDue(now: .now) == true else { return nil }
            return watch
        }
        guard let watch else { return }
        let size: Int64
        do {
            size = try watch.storeSize(writer)
        } catch {
            // Without the measure no size sweep starts: say so (once per cause, not per commit).
            failureLog.failed(.sizeCheck, LogStoreError(error))
            return
        }
        failureLog.succeeded(.sizeCheck)
        isOverLimit.store(size > watch.limit, ordering: .relaxed)
        if size > watch.limit { watch.onOverLimit() }
    }

    private func reportCommit(upTo ticket: UInt64) {
        commits.notify()
        failureLog.committed()
        let (flushWaiters, synchronousWaiters) = control.withLock { control in
            control.committedTicket = max(control.committedTicket, ticket)
            let committed = control.committedTicket
            let flushWaiters = control.flushWaiters.filter { $0.ticket <= committed }
            control.flushWaiters.removeAll { $0.ticket <= committed }
            let synchronousWaiters = control.synchronousWaiters.filter { $0.ticket <= committed }
            control.synchronousWaiters.removeAll { $0.ticket <= committed }
            return (flushWaiters, synchronousWaiters)
        }
        for waiter in flushWaiters { waiter.continuation.resume() }
        for waiter in synchronousWaiters { waiter.semaphore.signal() }
    }

    /// A commit's failure as the store reports it: ``LogStoreError/writeFailed(_:)`` with its cause.
    private static func writeFailed(_ error: any Error) -> LogStoreError {
        let cause = LogStoreError(error)
        return cause.kind == .writeFailed ? cause : .writeFailed(cause)
    }

    /// Counts and reports the events set aside because they failed on their own.
    private func reportRejected(_ rejected: [BatchWriter.RejectedEvent]) {
        guard !rejected.isEmpty else { return }
        failureLog.eventsRejected(rejected.map { Self.writeFailed($0.error) })
    }

    /// Counts and reports body files a transaction's end could not delete (they stay as orphans
    /// for the sweep's scan, which retries).
    private func reportFileDeletionFailures(_ failures: [LogStoreError]) {
        failureLog.blobDeletionsFailed(failures)
    }

    private func reportFailure(_ error: any Error, upTo ticket: UInt64) {
        let storeError = Self.writeFailed(error)
        // The hook first: a `.synchronous` call or a flush that returns with this failure must find
        // it already reported (a caller checks its hook's record once the call is back). The same
        // failure again (a full disk, round after round) was reported already.
        failureLog.commitFailed(storeError)
        failWaiters(upTo: ticket, with: storeError)
    }

    /// Resumes the flushes and `.synchronous` calls waiting for tickets up to `ticket` with `error`.
    private func failWaiters(upTo ticket: UInt64, with error: LogStoreError) {
        let (flushWaiters, synchronousWaiters) = control.withLock { control in
            let flushWaiters = control.flushWaiters.filter { $0.ticket <= ticket }
            control.flushWaiters.removeAll { $0.ticket <= ticket }
            let synchronousWaiters = control.synchronousWaiters.filter { $0.ticket <= ticket }
            control.synchronousWaiters.removeAll { $0.ticket <= ticket }
            return (flushWaiters, synchronousWaiters)
        }
        for waiter in flushWaiters { waiter.continuation.resume(throwing: error) }
        for waiter in synchronousWaiters { waiter.semaphore.signal() }
    }

    /// Runs the queued jobs that need no commit first (one step each), leaving ordered jobs
    /// queued. Called on the writer thread with the connection held.
    private func runUnorderedJobs(_ writer: BatchWriter) {
        // Past the size at which it is swept, logging must not outrun the sweep: its steps run for up to
        // 200 ms here (producers wait for room, or the overflow policy drops), within the
        // 250 ms a commit may wait.
        let budget: Duration = isOverLimit.load(ordering: .relaxed) ? .milliseconds(200) : .zero
        let start = ContinuousClock.now
        repeat {
            let unordered = control.withLock { control -> [Job] in
                let unordered = control.jobs.filter { !$0.isOrdered }
                if !unordered.isEmpty { control.jobs.removeAll { !$0.isOrdered } }
                return unordered
            }
            guard !unordered.isEmpty else { return }
            let unfinished = unordered.filter { !$0.start(writer) }
            if !unfinished.isEmpty { control.withLock { $0.jobs.insert(contentsOf: unfinished, at: 0) } }
        } while ContinuousClock.now - start < budget
    }

    private func runJobs() -> Bool {
        let ordered = control.withLock { control -> [Job]? in
            guard !control.jobs.isEmpty else { return nil }
            let ordered = control.jobs.filter(\.isOrdered)
            control.jobs.removeAll(where: \.isOrdered)
            return ordered
        }
        guard let ordered else { return false }
        if !ordered.isEmpty {
            // `perform` promises ordered work runs after the events accepted before the call:
            // one may have arrived after this round's batch was taken, so commit what is waiting
            // first, without starting another batch in the background (twice when one was being
            // prepared: it holds only what was taken before it started).
            let hadPendingBatch = hasPendingBatch
            _ = writePendingEvents(pipelining: false)
            if hadPendingBatch { _ = writePendingEvents(pipelining: false) }
            database.withLock { writer in
                for job in ordered { _ = job.start(writer) }
            }
        }
        database.withLock { runUnorderedJobs($0) }
        return true
    }

    /// The wait before the next attempt: the save interval, doubled per consecutive failure up
    /// to 5 seconds, so a full disk is not hammered.
    private func backoff(_ failures: Int) -> Duration {
        guard failures > 0 else { return saveInterval }
        let doubled = saveInterval * (1 << min(failures, 6))
        return min(doubled, .seconds(5))
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        .nanoseconds(Int(duration.nanoseconds))
    }

    private static func dropNotice(count: UInt64, capacity: Int, bytes: Int) -> LogStore.Event.MessageCreated {
        LogStore.Event.MessageCreated(
            createdAt: Date(), label: "logstore", level: .warning,
            message: "Dropped \(count) events: the ingestion buffer was full "
                + "(maxPendingEvents = \(capacity), maxPendingBytes = \(bytes))",
            metadata: ["dropped": .string(String(count))], file: "StoreWriter.swift", function: "writePendingEvents()",
            line: 0)
    }
}
