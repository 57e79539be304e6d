import Dispatch
import Foundation
import Synchronization

/// Notices commits by other connections (another process writing the same store) while live
/// tails or the change history's merges run (``HistoryMerger``), by asking `PRAGMA data_version`
/// on a connection of its own whenever the store's files are written, and on a timer besides.
///
/// `data_version` changes when any other connection commits (sqlite.org/pragma.html#pragma_data_version)
/// and costs a few microseconds: no row is read. It must be asked of one and the same
/// connection each time, so the watch keeps its own rather than borrowing the store's readers
/// (whose queries are spread over the pool). One watch per store serves every tail; it runs
/// only while at least one tail does, and never holds a transaction open between asks (that
/// would hold back the writer's checkpoints).
///
/// When it asks: every commit appends to the WAL with `write(2)`, so an inotify watch on the
/// store's directory (``DirectoryWriteWatch``, writes to the database and its `-wal`) wakes the
/// watch as another process commits. A commit writes one event per page, and becomes visible
/// only after its last write, when the writer updates the WAL index in shared memory (which no
/// event reports): so the watch asks 1 ms after a write, and while `data_version` has not
/// moved, again over the next ~40 ms (``recheckDelays``), starting over with each write. Asking
/// at once on every event cost the tailing process ~25 % more CPU at 2k commits/s for no
/// better latency (``StoreWriter/commitSpacing`` has the figures). A timer asks besides: every
/// ``safetyInterval`` while the files are watched (a write the kernel did not report, a watch
/// that ended), every ``interval`` where inotify is unavailable (the instance or watch limits,
/// a file system without it).
final class DataVersionWatch: Sendable {
    /// How often the watch asks where it cannot watch the files.
    static let interval: Duration = .milliseconds(50)
    /// How often it asks while it watches the files: a safety net only.
    static let safetyInterval: Duration = .milliseconds(500)
    /// After a write, the waits before asking (the first) and asking again (each from the ask
    /// before) while `data_version` has not moved.
    static let recheckDelays: [Duration] = [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20)]

    private struct State {
        var users = 0
        var timer: (any DispatchSourceTimer)?
        var connection: Connection?
        var lastVersion: Int64?
        var isClosed = false
        /// The store's files watched, and the source that reads the watch's events.
        var files: (watch: DirectoryWriteWatch, source: any DispatchSourceRead)?
        /// Whether a watch of the files was tried since polling started (it is tried once).
        var triedWatchingFiles = false
        /// The position in ``recheckDelays`` of the rechecks under way, if any.
        var recheck: Int?
    }

    /// Guards everything, the connection included: the timer's asks, the file events, the
    /// rechecks and `start` / `stop` / `close` from the tails' tasks take it in turn.
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "logstore-tail-watch")
    private let open: @Sendable () throws -> Connection
    private let signal: CommitSignal

    init(signal: CommitSignal, open: @escaping @Sendable () throws -> Connection) {
        self.signal = signal
        self.open = open
    }

    /// A tail (or the history's merge loop) starts: watching starts with the first.
    func start() {
        state.withLock { state in
            state.users += 1
            guard state.users == 1, !state.isClosed, state.timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            // The first ask opens the connection and starts watching the files, which lengthens
            // the timer's interval when it can.
            timer.schedule(deadline: .now(), repeating: Self.dispatchInterval(Self.interval), leeway: .milliseconds(5))
            timer.setEventHandler { [weak self] in self?.poll() }
            state.timer = timer
            timer.resume()
        }
    }

    /// A tail (or the merge loop) ended: watching stops, and the connection closes, with the last.
    func stop() {
        state.withLock { state in
            state.users = max(0, state.users - 1)
            if state.users == 0 { Self.stopWatching(&state) }
        }
    }

    /// The store closes: watching stops for good.
    func close() {
        state.withLock { state in
            state.isClosed = true
            Self.stopWatching(&state)
        }
    }

    /// Whether the store's files are watched (for tests: `false` until the first ask).
    var isWatchingFiles: Bool { state.withLock { $0.files != nil } }

    private static func stopWatching(_ state: inout State) {
        state.timer?.cancel()
        state.timer = nil
        // Its cancel handler closes the descriptor, once the source is done with it.
        state.files?.source.cancel()
        state.files = nil
        state.triedWatchingFiles = false
        state.recheck = nil
        state.connection?.close()
        state.connection = nil
        state.lastVersion = nil
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        .milliseconds(Int(duration / .milliseconds(1)))
    }

    // MARK: Asking

    /// The timer's ask.
    private func poll() {
        let changed = state.withLock { state -> Bool in
            guard state.timer != nil else { return false }
            let changed = ask(&state)
            if !state.triedWatchingFiles, let connection = state.connection {
                state.triedWatchingFiles = true
                watchFiles(of: connection.path, &state)
            }
            return changed
        }
        if changed { signal.notify() }
    }

    /// The store's files were written (or the kernel lost events).
    private func filesWritten() {
        state.withLock { state in
            guard state.timer != nil, let files = state.files, files.watch.drain() else { return }
            // Asked a moment later, not now: a commit writes several pages, one event each, and
            // is visible only after its last; one ask then serves them all. A chain of asks
            // under way starts over.
            if state.recheck == nil { scheduleRecheck(after: Self.recheckDelays[0]) }
            state.recheck = 0
        }
    }

    /// An ask after a write (``recheckDelays``).
    private func recheck() {
        let changed = state.withLock { state -> Bool in
            guard state.timer != nil, let step = state.recheck else { return false }
            if ask(&state) {
                state.recheck = nil
                return true
            }
            let next = step + 1
            guard next < Self.recheckDelays.count else {
                // A write that committed nothing (a checkpoint, a rollback): the timer remains.
                state.recheck = nil
                return false
            }
            state.recheck = next
            scheduleRecheck(after: Self.recheckDelays[next])
            return false
        }
        if changed { signal.notify() }
    }

    private func scheduleRecheck(after delay: Duration) {
        queue.asyncAfter(deadline: .now() + Self.dispatchInterval(delay)) { [weak self] in self?.recheck() }
    }

    /// Asks `data_version`; whether the tails should read again. Called with the lock held.
    private func ask(_ state: inout State) -> Bool {
        do {
            if state.connection == nil { state.connection = try open() }
            guard let connection = state.connection else { return false }
            let version = try connection.dataVersion()
            defer { state.lastVersion = version }
            // The first ask wakes the tails too: a commit between a tail's first read and
            // this ask would otherwise wait for the next one.
            return state.lastVersion == nil || version != state.lastVersion
        } catch {
            // The tails' own reads report what is wrong with the database (the same file):
            // wake them, so the error reaches the consumer instead of a silent stall.
            state.connection?.close()
            state.connection = nil
            return true
        }
    }

    /// Starts watching the directory of the database at `path` for writes to it and its WAL;
    /// where that fails, the timer keeps asking every ``interval``.
    private func watchFiles(of path: String, _ state: inout State) {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let watch: DirectoryWriteWatch
        do {
            watch = try DirectoryWriteWatch(directory: url.deletingLastPathComponent().path, names: [name, name + "-wal"])
        } catch {
            // Polling every `interval` is the documented fallback: tails still see every
            // commit, only later, so there is nothing for a user to act on.
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: watch.descriptor, queue: queue)
        source.setEventHandler { [weak self] in self?.filesWritten() }
        source.setCancelHandler { watch.close() }
        state.files = (watch, source)
        source.resume()
        state.timer?.schedule(
            deadline: .now() + Self.dispatchInterval(Self.safetyInterval),
            repeating: Self.dispatchInterval(Self.safetyInterval), leeway: .milliseconds(20))
    }
}
