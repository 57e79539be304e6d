import Dispatch
import Synchronization

/// Notices commits by other connections (another process writing the same store) while live
/// tails or the change history's merges run (``HistoryMerger``), by polling `PRAGMA data_version`
/// on a connection of its own.
///
/// `data_version` changes when any other connection commits (sqlite.org/pragma.html#pragma_data_version)
/// and costs a few microseconds: no row is read. It must be asked of one and the same
/// connection each time, so the watch keeps its own rather than borrowing the store's readers
/// (whose queries are spread over the pool). One watch per store serves every tail; it runs
/// only while at least one tail does, and never holds a transaction open between polls (that
/// would hold back the writer's checkpoints).
///
/// Polling was chosen over a file watch on the WAL (inotify): it needs no platform code, sees
/// commits that a checkpoint folds back into the database file, and the benchmark
/// (`tail.latency_ms_p99`) shows its interval is small beside the writer's save interval.
final class DataVersionWatch: Sendable {
    /// How often the watch asks: small beside the writer's default save interval (300 ms).
    static let interval: Duration = .milliseconds(50)

    private struct State {
        var users = 0
        var timer: (any DispatchSourceTimer)?
        var connection: Connection?
        var lastVersion: Int64?
        var isClosed = false
    }

    /// Guards everything, the connection included: the timer's polls and `start` / `stop` /
    /// `close` from the tails' tasks take it in turn.
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "logstore-tail-watch")
    private let open: @Sendable () throws -> Connection
    private let signal: CommitSignal

    init(signal: CommitSignal, open: @escaping @Sendable () throws -> Connection) {
        self.signal = signal
        self.open = open
    }

    /// A tail (or the history's merge loop) starts: polling starts with the first.
    func start() {
        state.withLock { state in
            state.users += 1
            guard state.users == 1, !state.isClosed, state.timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = Int(Self.interval / .milliseconds(1))
            timer.schedule(deadline: .now(), repeating: .milliseconds(interval), leeway: .milliseconds(5))
            timer.setEventHandler { [weak self] in self?.poll() }
            state.timer = timer
            timer.resume()
        }
    }

    /// A tail (or the merge loop) ended: polling stops, and the connection closes, with the last.
    func stop() {
        state.withLock { state in
            state.users = max(0, state.users - 1)
            if state.users == 0 { Self.stopPolling(&state) }
        }
    }

    /// The store closes: polling stops for good.
    func close() {
        state.withLock { state in
            state.isClosed = true
            Self.stopPolling(&state)
        }
    }

    private static func stopPolling(_ state: inout State) {
        state.timer?.cancel()
        state.timer = nil
        state.connection?.close()
        state.connection = nil
        state.lastVersion = nil
    }

    private func poll() {
        let changed = state.withLock { state -> Bool in
            guard state.timer != nil else { return false }
            do {
                if state.connection == nil { state.connection = try open() }
                guard let connection = state.connection else { return false }
                let version = try connection.dataVersion()
                defer { state.lastVersion = version }
                // The first poll wakes the tails too: a commit between a tail's first read and
                // this poll would otherwise wait for the next one.
                return state.lastVersion == nil || version != state.lastVersion
            } catch {
                // The tails' own reads report what is wrong with the database (the same file):
                // wake them, so the error reaches the consumer instead of a silent stall.
                state.connection?.close()
                state.connection = nil
                return true
            }
        }
        if changed { signal.notify() }
    }
}
