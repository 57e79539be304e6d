import Dispatch
import Synchronization

/// The one writer: a dedicated thread (``WriterThread``) that owns the write connection,
/// drains the ingestion buffer in batches (one transaction each, every save interval or sooner
/// when many events wait) and runs the store's other writes (``WriterJobs``) between batches,
/// in order.
///
/// Its parts: the thread and its waits (``WriterThread``), who waits for which commit
/// (``CommitTickets``), the queued jobs (``WriterJobs``), the next batch prepared meanwhile
/// (``BatchPipeline``), the failures (``WriteFailureLog``), and the idle-time jobs — the search
/// index's steps (``SearchIndexRound``) and the size check (``SizeCheck``). This file is the
/// loop that runs them; `+Commit` commits a batch; `+IdleWork` runs the rest.
final class StoreWriter: Sendable {
    let buffer: IngestBuffer
    let broadcaster: EventBroadcaster
    /// Notified after every commit of logged events: what wakes live tails in this process.
    let commits = CommitSignal()
    /// The threads running the writer's work (and its hooks), where logging must not wait.
    let threads = WriterThreads()
    let database: Mutex<BatchWriter>
    let thread: WriterThread
    let tickets = CommitTickets()
    let jobs = WriterJobs()
    let pipeline: BatchPipeline
    let roomWaiters: RoomWaiters
    let saveInterval: Duration
    /// Whether the writer commits as soon as it is free (``LogStore/Configuration/isGroupCommitEnabled``).
    let groupCommits: Bool
    /// With group commit, the least time between the ends of two commits of logged events (or
    /// the save interval, when shorter): what is logged meanwhile joins the next transaction.
    ///
    /// Measured on the `tail` group (10k messages at 2k/s from another process; CPU seconds of
    /// the whole run from `perf` samples, writer process / tailing process; p99 latency):
    /// batching every 300 ms 0.65 / 0.08 s, 338 ms; a commit per message 3.1 / 3.7 s, 7 ms;
    /// 2 ms apart 1.0 / 1.1 s, 10 ms; 5 ms apart 0.89 / 0.73 s, 12 ms; 10 ms apart 0.83 / 0.53 s,
    /// 17 ms (the last three with the idle-time index throttle and the watch's first-ask delay).
    /// A message logged after a quiet spell is committed at once.
    static let commitSpacing: Duration = .milliseconds(5)
    /// Where the last commit of logged events ended, on the thread's timer (only the writer
    /// thread reads and writes it; the lock makes the class Sendable).
    let lastCommitEnd = Mutex<Duration?>(nil)
    /// Where the last idle-time index step ran, on the thread's timer (see ``indexSearch(isBusy:)``).
    let lastIdleIndexStep = Mutex<Duration?>(nil)
    /// Whether the writer keeps the full-text index caught up (``SearchIndex``).
    let indexesSearch: Bool
    /// The failures' counts, and which were reported already.
    let failureLog: WriteFailureLog
    let sizeCheck: SizeCheck
    /// How long the last batch took to commit, in nanoseconds: the sweep sizes its steps by it.
    let lastCommitNanoseconds = Atomic<Int64>(0)
    /// Called once the thread has stopped (`nil` once it has: later callers are called at once).
    private let finished = Mutex<[@Sendable () -> Void]?>([])

    /// - Parameter openReader: opens a read-only connection for the background preparation's
    ///   lookups (nil for a store in memory).
    init(
        batchWriter: sending BatchWriter, buffer: IngestBuffer, configuration: LogStore.Configuration,
        openReader: (@Sendable () throws -> Connection)?
    ) {
        let blobSettings = batchWriter.blobs.settings
        let timer = configuration.timeSource.timer
        self.database = Mutex(batchWriter)
        self.buffer = buffer
        self.broadcaster = EventBroadcaster()
        self.thread = WriterThread(timer: timer)
        self.sizeCheck = SizeCheck(timer: timer)
        self.saveInterval = configuration.saveInterval
        self.groupCommits = configuration.isGroupCommitEnabled
        self.indexesSearch = configuration.isSearchIndexEnabled
        self.failureLog = WriteFailureLog(onWriteError: configuration.onWriteError)
        let roomWaiters = RoomWaiters()
        self.roomWaiters = roomWaiters
        let preparer = BatchPreparer(
            buffer: buffer, configuration: configuration, blobSettings: blobSettings, openReader: openReader,
            threads: threads, didTake: { roomWaiters.wakeAll() })
        self.pipeline = BatchPipeline(preparer: preparer, buffer: buffer)
        database.withLock { writer in
            writer.timer = timer
            writer.onFileDeletionFailures = { [weak self] failures in self?.reportFileDeletionFailures(failures) }
        }
    }

    func start() {
        thread.start { [self] in run() }
    }

    /// After commits, calls `onOverLimit` when the store has grown past `limit` bytes (checked
    /// every ``SizeWatch/interval`` at most).
    func watchSize(limit: Int64, onOverLimit: @escaping @Sendable () -> Void) {
        sizeCheck.watch(limit: limit, onOverLimit: onOverLimit)
    }

    // MARK: Producers

    /// Asks the writer to start a batch now: called by the producer whose event crossed the
    /// wake threshold.
    func wakeUp() {
        pipeline.prepareNextWhileCommitting()
        thread.signal()
    }

    /// Starts preparing the next batch in the background when the writer is committing one:
    /// called by the producer whose event crossed the buffer's prepare threshold.
    func prepareNextWhileCommitting() {
        pipeline.prepareNextWhileCommitting()
    }

    /// Blocks the calling thread until the writer has taken a batch (room in the buffer), or
    /// briefly, so the caller can try again: the ``LogStore/OverflowPolicy/waitForSpace`` policy.
    func waitForSpace() {
        thread.signal()
        roomWaiters.wait()
    }

    /// Suspends, holding no thread, until the writer has taken a batch after `generation`
    /// (read with ``roomGeneration`` before the append that found the buffer full).
    func waitForSpace(since generation: UInt64) async {
        thread.signal()
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
        guard let semaphore = tickets.semaphore(forTicket: ticket) else { return nil }
        thread.signal()
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
        try await tickets.wait(upTo: ticket) { thread.signal() }
    }

    /// Runs `work` on the writer thread with the write connection, after the events accepted
    /// before the call are committed, or, when not `ordered`, between two batches as soon as
    /// the current one is committed (the sweep's steps: they do not depend on what was logged,
    /// and forcing a commit before each would cut ingestion into small transactions).
    func perform<T: Sendable>(
        ordered: Bool = true, _ work: @escaping @Sendable (BatchWriter) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = WriterJobs.Job(
                isOrdered: ordered,
                run: { writer in
                    continuation.resume(with: Result { try work(writer) })
                    return true
                },
                cancel: { continuation.resume(throwing: LogStoreError.closed) })
            if jobs.enqueue(job) { thread.signal() }
        }
    }

    /// Runs `step` on the writer thread once per round, between two batches of logged events,
    /// until it returns `true` (finished) or throws: long maintenance (the sweep) in bounded
    /// steps, with no wait between them but the writer's own batches.
    func performSteps(_ step: @escaping @Sendable (BatchWriter) throws -> Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let job = WriterJobs.Job(
                isOrdered: false, isStepwise: true,
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
            if jobs.enqueue(job) { thread.signal() }
        }
    }

    /// How long the last transaction of logged events took to commit (the longest of its round).
    var lastCommitDuration: Duration { .nanoseconds(lastCommitNanoseconds.load(ordering: .relaxed)) }

    /// Whether a commit found the database damaged (nothing is written any more).
    var isDamaged: Bool { tickets.damage != nil }

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
        let accepted = jobs.beginStopping(finally: finally)
        thread.signal()
        let report: @Sendable () -> Void = { [tickets] in
            done(accepted ? tickets.finalError : nil)
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
        threads.enterWriterThread()
        var consecutiveFailures = 0
        while true {
            if consecutiveFailures > 0 {
                waitBeforeRetrying(for: backoff(consecutiveFailures))
            } else {
                waitForWork()
            }
            while true {
                let outcome = writePendingEvents()
                consecutiveFailures = outcome == .failed ? consecutiveFailures + 1 : 0
                let ranJobs = runJobs()
                if outcome == .failed { break }
                let indexedMore = indexSearch(isBusy: buffer.isPastWakeThreshold || ranJobs || pipeline.hasPendingBatch)
                if !buffer.isPastWakeThreshold && !ranJobs && !pipeline.hasPendingBatch && !indexedMore { break }
                // Steps of long jobs keep this loop going; closing must still end it.
                if jobs.isStopping && !buffer.hasWaitingEvents && !pipeline.hasPendingBatch { break }
            }
            if jobs.isStopping && !pipeline.hasPendingBatch {
                // Closing gives up on events put back after three failed rounds in a row.
                if consecutiveFailures >= 3 { break }
                if consecutiveFailures == 0 && !buffer.hasWaitingEvents { break }
            }
        }
        finishThread(failed: consecutiveFailures > 0 || tickets.damage != nil)
    }

    /// Waits for the next round. With group commit, only while nothing is waiting: events
    /// logged during the last round are committed next (they are the next, larger, batch), and
    /// the first event logged while the writer waits wakes it; the save interval still bounds
    /// the wait, for the idle-time work. Two commits are at least ``commitSpacing`` apart.
    /// Without group commit, one save interval (or until woken by enough waiting events, a
    /// flush, a job).
    private func waitForWork() {
        guard groupCommits else {
            thread.wait(for: saveInterval)
            return
        }
        if buffer.markWriterIdle() {
            thread.wait(for: saveInterval)
            // Woken by anything but a logged event (a flush, a job, closing, the interval's
            // end): that wake-up is spent, so no spacing wait, which only it would end.
            guard buffer.markWriterBusy() else { return }
        }
        // A caller waiting for a commit (a flush, a `.synchronous` call) is not kept waiting;
        // one that comes later, a job, closing or a full wake threshold end the wait early.
        guard !jobs.isStopping, !tickets.isRetryRequested, let lastCommitEnd = lastCommitEnd.withLock({ $0 })
        else { return }
        let remaining = min(Self.commitSpacing, saveInterval) - (thread.elapsed - lastCommitEnd)
        if remaining > .zero { thread.wait(for: remaining) }
    }

    /// Waits `delay` after a failed commit before the next attempt. Wake-ups alone do not
    /// shorten it: producers waiting for room and a full buffer signal the writer, and each used
    /// to bring an immediate retry, so a store that failed every commit kept the writer at
    /// 100 % CPU. A caller waiting for a commit (a flush, a `.synchronous` call, the exit drain,
    /// which waits 1.5 s at most) brings the retry forward, to one save interval after the
    /// failure at the soonest. Queued jobs still run meanwhile, and closing ends the wait (the
    /// closing rounds then retry at once, a few times at most).
    private func waitBeforeRetrying(for delay: Duration) {
        let failedAt = thread.elapsed
        while true {
            if jobs.isStopping { return }
            let end = failedAt + (tickets.isRetryRequested ? min(delay, saveInterval) : delay)
            let remaining = end - thread.elapsed
            guard remaining > .zero else { return }
            thread.wait(for: remaining)
            if !jobs.isEmpty { _ = runJobs() }
        }
    }

    /// The wait before the next attempt: the save interval, doubled per consecutive failure up
    /// to 5 seconds, so a full disk is not hammered.
    private func backoff(_ failures: Int) -> Duration {
        guard failures > 0 else { return saveInterval }
        let doubled = saveInterval * (1 << min(failures, 6))
        return min(doubled, .seconds(5))
    }

    private func finishThread(failed: Bool) {
        _ = runJobs()
        pipeline.preparer.close()
        if let finalJob = jobs.finalJob {
            database.withLock { finalJob($0) }
        }
        jobs.stop()
        tickets.stop(finalError: failed ? failureLog.failures.last : nil)
        broadcaster.finish()
        let waiters = finished.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter() }
    }
}
