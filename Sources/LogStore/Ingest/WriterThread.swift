import Dispatch
import Foundation

/// The writer's own thread and what wakes it: a dedicated thread, not a task, because SQLite
/// blocks, and Swift's cooperative pool is only as wide as the CPU count, so a blocking writer
/// there would stall every other task.
///
/// Its waits run on the store's ``StoreTimer``: a test advances the timer instead of sleeping
/// through a save interval or a back-off.
final class WriterThread: Sendable {
    /// The thread's name, as `top -H`, `perf` and the debugger show it.
    static let name = "logstore-writer"

    let timer: StoreTimer
    private let wake = DispatchSemaphore(value: 0)

    init(timer: StoreTimer) {
        self.timer = timer
    }

    /// Starts the thread running `body`.
    func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // The writer is itself in `top -H` instead of the queue that started it.
            ThreadName.setCurrent(Self.name)
            body()
        }
        thread.start()
    }

    /// Wakes the thread from its wait (or makes its next wait return at once).
    func signal() {
        wake.signal()
    }

    /// Blocks the thread until it is woken or `timeout` has passed; `true` when woken.
    @discardableResult
    func wait(for timeout: Duration) -> Bool {
        timer.wait(wake, timeout)
    }

    /// The timer's reading, for intervals.
    var elapsed: Duration { timer.elapsed() }
}
