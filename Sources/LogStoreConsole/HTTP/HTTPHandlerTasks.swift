import Synchronization

/// The tasks answering requests, so that ``HTTPServer/stop()`` can cancel them and wait for them.
final class HTTPHandlerTasks: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var isClosed = false
    }

    /// Guards the running tasks; a task is added under it as it is created, so its own removal
    /// (which takes the lock too) cannot come first.
    private let state = Mutex(State())
    /// Completes once closed with no task left.
    let drained = HTTPCompletionSignal()

    /// Runs `operation` in a task of its own on the concurrency pool (never on the loop thread).
    /// - Returns: false once closed: the server is stopping and starts nothing new.
    func start(_ id: UInt64, _ operation: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.running[id] = Task.detached { [self] in
                await operation()
                finished(id)
            }
            return true
        }
    }

    /// Cancels the task `id` if it is still running (its client left: the work has no reader).
    func cancel(_ id: UInt64) {
        state.withLock { $0.running[id] }?.cancel()
    }

    /// Refuses new tasks and cancels the running ones (a streaming body's next write then throws).
    func closeAndCancelAll() {
        let (tasks, isDrained) = state.withLock { state in
            state.isClosed = true
            return (Array(state.running.values), state.running.isEmpty)
        }
        for task in tasks { task.cancel() }
        if isDrained { drained.complete() }
    }

    private func finished(_ id: UInt64) {
        let isDrained = state.withLock { state in
            state.running[id] = nil
            return state.isClosed && state.running.isEmpty
        }
        if isDrained { drained.complete() }
    }
}
