import Dispatch
import Foundation
import Synchronization

/// One thread that lives as long as the process and launches every child of every cluster.
///
/// A child started through `setpriv --pdeathsig KILL` gets SIGKILL when *the thread that forked
/// it* ends (prctl(2), PR_SET_PDEATHSIG), not only the process. Swift's cooperative pool and
/// Dispatch retire idle threads, which would kill a server in the middle of a test; this thread
/// never ends, so the children die exactly when the test process does.
final class LauncherThread: Sendable {
    /// The one launcher.
    static let shared = LauncherThread()

    private let work = Mutex<[@Sendable () -> Void]>([])
    private let pending = DispatchSemaphore(value: 0)

    private init() {
        // It keeps the launcher alive, and the launcher is never released (a static).
        let thread = Thread { [self] in
            while true {
                pending.wait()
                let next = work.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                next?()
            }
        }
        thread.name = "ClickHouseCluster launcher"
        thread.start()
    }

    /// Runs `body` on the launcher thread and returns its result. `body` must be quick (a
    /// `posix_spawn`): every launch of the process waits its turn on this one thread.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            work.withLock { $0.append { continuation.resume(with: Result { try body() }) } }
            pending.signal()
        }
    }
}
