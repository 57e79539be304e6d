import Synchronization

/// The store's other writes, queued for the writer thread: ordered jobs run after the events
/// accepted before them are committed; unordered ones (the sweep's steps) run between two
/// transactions, a step at a time, until they say they are finished.
///
/// Also where the writer's stopping is decided: once ``beginStopping(finally:)`` is called, new
/// jobs are cancelled instead of queued.
final class WriterJobs: Sendable {
    private let state = Mutex(State())

    private struct State {
        var jobs: [Job] = []
        var isStopping = false
        var isStopped = false
        /// Runs once the last batch is committed (or given up on), before the thread ends.
        var finalJob: (@Sendable (BatchWriter) -> Void)?
    }

    /// One queued write.
    struct Job: Sendable {
        /// Whether the events accepted before the job must be committed before it runs.
        let isOrdered: Bool
        /// Whether it runs in steps (the sweep's long work), as opposed to one write.
        var isStepwise = false
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

    /// Queues `job`, or cancels it when the writer is stopping; `true` when queued (the caller
    /// wakes the writer).
    func enqueue(_ job: Job) -> Bool {
        job.handover.publish()
        let accepted = state.withLock { state -> Bool in
            guard !state.isStopped, !state.isStopping else { return false }
            state.jobs.append(job)
            return true
        }
        if !accepted { job.cancel() }
        return accepted
    }

    /// Whether any job waits.
    var isEmpty: Bool { state.withLock { $0.jobs.isEmpty } }

    /// How many jobs wait (a test waits for its call to be queued instead of sleeping).
    var count: Int { state.withLock { $0.jobs.count } }

    /// Takes the ordered jobs, leaving the unordered ones queued; `nil` when no job at all waits.
    func takeOrdered() -> [Job]? {
        state.withLock { state -> [Job]? in
            guard !state.jobs.isEmpty else { return nil }
            let ordered = state.jobs.filter(\.isOrdered)
            state.jobs.removeAll(where: \.isOrdered)
            return ordered
        }
    }

    /// Runs one step of each unordered job, putting back the unfinished ones ahead of what came
    /// meanwhile; `nil` when there was none, otherwise whether a stepwise job was among them.
    func runUnorderedSteps(_ writer: BatchWriter) -> Bool? {
        let unordered = state.withLock { state -> [Job] in
            let unordered = state.jobs.filter { !$0.isOrdered }
            if !unordered.isEmpty { state.jobs.removeAll { !$0.isOrdered } }
            return unordered
        }
        guard !unordered.isEmpty else { return nil }
        let unfinished = unordered.filter { !$0.start(writer) }
        if !unfinished.isEmpty { state.withLock { $0.jobs.insert(contentsOf: unfinished, at: 0) } }
        return unordered.contains(where: \.isStepwise)
    }

    /// Starts stopping: later jobs are cancelled, and `finally` runs last. `false` when the
    /// writer was stopping already (`finally` is then not kept).
    func beginStopping(finally: @escaping @Sendable (BatchWriter) -> Void) -> Bool {
        state.withLock { state -> Bool in
            guard !state.isStopping else { return false }
            state.isStopping = true
            state.finalJob = finally
            return true
        }
    }

    /// Whether ``beginStopping(finally:)`` was called.
    var isStopping: Bool { state.withLock { $0.isStopping } }

    /// The job to run last, given to ``beginStopping(finally:)``.
    var finalJob: (@Sendable (BatchWriter) -> Void)? { state.withLock { $0.finalJob } }

    /// Stops the queue for good and cancels what it still holds.
    func stop() {
        let left = state.withLock { state -> [Job] in
            state.isStopped = true
            defer { state.jobs.removeAll() }
            return state.jobs
        }
        for job in left { job.cancel() }
    }
}
