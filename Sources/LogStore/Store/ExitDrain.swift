import Dispatch
import Glibc
import Synchronization

/// Commits what every open store has queued when the process exits normally (returns from
/// `main` or calls `exit`), so a program that never calls `close()` loses nothing it logged.
///
/// An `atexit` handler, installed with the first writable store, runs on the exiting thread
/// while the writer threads still run: it wakes each writer and waits, up to ``deadline`` for
/// all of them together, until what was queued before the exit is committed. It does not close
/// or checkpoint (the WAL is durable; the next open reads it), so it never races a `close()`.
/// A writer whose own thread calls `exit` (from `willHandleEvent` or `onWriteError`) cannot
/// commit while it runs the handler: its queue is lost. Signals that kill the process
/// (`SIGKILL`, an unhandled `SIGTERM`) and `_exit` run no handler at all.
enum ExitDrain {
    /// How long the exit may wait for the writers, all together.
    static let deadline: Duration = .milliseconds(1_500)

    /// The writers of the open stores, weakly: a store released or closed is no concern here.
    private static let writers = Mutex<[ObjectIdentifier: WeakWriter]>([:])

    private struct WeakWriter {
        weak var writer: StoreWriter?
    }

    /// Installs the handler once, on first use.
    private static let installed: Void = {
        atexit { ExitDrain.drainAll() }
    }()

    static func register(_ writer: StoreWriter) {
        _ = installed
        writers.withLock { writers in
            writers = writers.filter { $0.value.writer != nil }
            writers[ObjectIdentifier(writer)] = WeakWriter(writer: writer)
        }
    }

    static func unregister(_ writer: StoreWriter) {
        _ = writers.withLock { $0.removeValue(forKey: ObjectIdentifier(writer)) }
    }

    /// Waits until every open store has committed what was logged before the call, or until the
    /// deadline. The registry's lock is only ever held for a dictionary update, never while
    /// calling out, so no thread that calls `exit` can be holding it.
    static func drainAll() {
        let live = writers.withLock { $0.values.compactMap(\.writer) }
        let end = DispatchTime.now() + .nanoseconds(Int(deadline.nanoseconds))
        // A writer (or its background preparation) that calls `exit` itself cannot be waited for.
        let targets = live.filter { !$0.threads.isCurrent }.map { ($0, $0.buffer.lastTicket) }
        // Every writer is woken before any wait, so they commit side by side.
        let firstSignals = targets.map { writer, ticket in writer.commitSignal(forTicket: ticket) }
        for ((writer, ticket), first) in zip(targets, firstSignals) {
            var signal = first
            while let current = signal, current.wait(timeout: end) == .success, DispatchTime.now() < end {
                // A failed commit signals too: the writer retries, so wait for that until the end.
                signal = writer.commitSignal(forTicket: ticket)
            }
        }
    }
}
