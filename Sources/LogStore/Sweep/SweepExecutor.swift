import Dispatch
import Foundation
import Synchronization

/// The executor every sweep and the sweep schedule run on: one dedicated thread for the
/// process, not Swift's cooperative pool.
///
/// The pool is only as wide as the CPU count (two threads here). Callers that park those
/// threads — a `.synchronous` or `.waitForSpace` logging call in async code, a blocking library —
/// would otherwise keep the schedule's timer and the sweep's continuations from ever running, and
/// a store under such load would grow past its limits. Tasks started with this executor as their
/// preference resume here after every `await` (the writer's and readers' continuations, the
/// timer's sleep), so they progress however busy the pool is. The work they do on this thread is
/// light: decisions and bookkeeping; the SQL runs on the writer thread and the reader queues.
final class SweepExecutor: TaskExecutor {
    /// The process's one sweep thread, started on first use.
    static let shared = SweepExecutor()

    private let jobs = Mutex<[UnownedJob]>([])
    private let wake = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            ThreadName.setCurrent("logstore-sweep")
            run()
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        wake.signal()
    }

    private func run() {
        var taken: [UnownedJob] = []
        while true {
            wake.wait()
            jobs.withLock { swap(&taken, &$0) }
            for job in taken { job.runSynchronously(on: asUnownedTaskExecutor()) }
            taken.removeAll(keepingCapacity: true)
        }
    }
}
