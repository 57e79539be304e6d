import CSQLite
import Foundation

/// Copies the writer's WAL into the database file on a thread of its own, so the writer's
/// commits rarely wait for a checkpoint.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: that commit
/// reads every frame back, writes it into the database file and waits for two fsyncs. On the
/// 1M-message benchmark that was about a quarter of the writer's wall time. Here the writer's
/// commits only ask (a WAL hook, which replaces the automatic checkpoint), and this thread runs
/// passive checkpoints on its own connection, which block neither the writer nor readers
/// (sqlite.org/c3ref/wal_checkpoint_v2.html). ``WALCheckpointPolicy`` decides when a commit asks
/// and when it copies itself: at ``WALCheckpointPolicy/restartFrames``, so the WAL starts over,
/// except behind a long reader's snapshot, whose backlog this thread copies once the reader has
/// moved on.
///
/// A checkpoint that fails leaves its frames in the WAL for the next one, as SQLite's automatic
/// checkpoint does; another process's checkpoint under way is not a failure.
final class WALCheckpointer: @unchecked Sendable {
    // Safe: `state` is read and written only with `condition` locked. `connection` is used by
    // `init`, then only by the thread (`run()`, after `Thread.start` ordered it), which closes it
    // before it ends; never attached, it is closed by `deinit` once nothing else holds it.
    private let condition = NSCondition()
    private var state: State
    private let connection: Connection

    private struct State {
        var policy: WALCheckpointPolicy
        var isRequested = false
        var isRunning = false
        /// The writer is checkpointing itself; no pass starts meanwhile.
        var isPaused = false
        var isStopping = false
        /// The thread runs (set by the thread itself: `detach` waits only for a thread that began).
        var hasBegun = false
        var hasEnded = false
    }

    /// Opens the thread's connection to the database at `path`.
    init(path: String, checkpointFrames: Int, restartFrames: Int) throws(DatabaseError) {
        connection = try Connection(path: path, mode: .readWrite(create: false))
        // A passive checkpoint never waits; the read below may (a recovery under way), as the
        // writer's and readers' do.
        try connection.setBusyTimeout()
        // Never the last connection to close (the writer's closes after it), and if it were, the
        // writer's own close decides what is copied.
        _ = logstore_sqlite_db_config_flag(connection.handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)
        // A checkpoint on a connection that never read may find no WAL open yet.
        _ = try connection.schemaVersion()
        state = State(policy: WALCheckpointPolicy(checkpointFrames: checkpointFrames, restartFrames: restartFrames))
    }

    /// Makes `writer`'s commits report the WAL's size here, in place of SQLite's automatic
    /// checkpoint, and starts the thread. `writer` must be closed or given back with
    /// ``detach(from:)`` before this object goes.
    func attach(to writer: Connection) {
        let thread = Thread { [self] in
            ThreadName.setCurrent("logstore-ckpt")
            run()
        }
        thread.start()
        sqlite3_wal_hook(writer.handle, { context, database, name, frames in
            // The store's own database only: an attached one has a WAL of its own.
            guard let context, let database, let name, strcmp(name, "main") == 0 else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
                .committed(frames: Int(frames), on: database)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the hook from `writer` and ends the thread, after the pass under way.
    func detach(from writer: Connection) {
        sqlite3_wal_hook(writer.handle, nil, nil)
        condition.withLock {
            // A thread that has not begun yet finds `isStopping` set and ends at once.
            state.isStopping = true
            condition.broadcast()
            while state.hasBegun && !state.hasEnded { condition.wait() }
        }
    }

    /// Runs `body` (a checkpoint of the writer's own) with no background pass under way or
    /// starting: SQLite lets one checkpoint run at a time and reports the other busy.
    func exclusively<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        condition.withLock {
            state.isPaused = true
            while state.isRunning { condition.wait() }
            // What the writer copies now, no pass needs to copy again.
            state.isRequested = false
        }
        defer {
            condition.withLock {
                state.isPaused = false
                condition.broadcast()
            }
        }
        return try body()
    }

    /// The WAL hook's side, on the writer's thread after each of its commits.
    private func committed(frames: Int, on database: OpaquePointer) {
        let copyHere = condition.withLock { () -> Bool in
            switch state.policy.committed(frames: frames) {
            case .nothing:
                return false
            case .requestPass:
                if !state.isRequested {
                    state.isRequested = true
                    state.policy.passRequested(atFrames: frames)
                    condition.broadcast()
                }
                return false
            case .copyHere:
                return true
            }
        }
        guard copyHere else { return }
        // As SQLite's automatic checkpoint does, a failure leaves the frames for later. The
        // outcome is recorded before the thread may run again, so it sees it when it wakes.
        exclusively {
            let copy = Self.checkpoint(database)
            condition.withLock { state.policy.recordCopyHere(copy) }
        }
    }

    /// A passive checkpoint of the main database on `database`: the WAL's frames when it
    /// began and how many of them are now copied, or nil when it failed (another process's
    /// checkpoint under way, an I/O error), which tells nothing of the WAL.
    private static func checkpoint(_ database: OpaquePointer) -> (frames: Int, copied: Int)? {
        var frames: Int32 = 0
        var copied: Int32 = 0
        let result = sqlite3_wal_checkpoint_v2(database, "main", SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
        return result == SQLITE_OK ? (Int(frames), Int(copied)) : nil
    }

    private func run() {
        condition.withLock { state.hasBegun = true }
        while let generation = waitForRequest() {
            let copy = Self.checkpoint(connection.handle)
            condition.withLock {
                state.isRunning = false
                state.policy.recordCopy(copy, generation: generation)
                condition.broadcast()
            }
        }
        connection.close()
        condition.withLock {
            state.hasEnded = true
            condition.broadcast()
        }
    }

    /// Waits for a request (or, while the last copy stopped at a reader, for the time to try
    /// again) and marks its pass as running; returns the WAL's generation it starts on, or nil
    /// when the thread should end.
    private func waitForRequest() -> Int? {
        condition.withLock {
            var retryAt: Date?
            while !state.isStopping {
                if !state.isPaused {
                    if state.isRequested { break }
                    // The reader may move on while nothing is logged, and no commit would ask.
                    if state.policy.isStoppedAtReader {
                        let deadline = retryAt ?? Date(timeIntervalSinceNow: state.policy.retryDelay)
                        retryAt = deadline
                        if !condition.wait(until: deadline), !state.isStopping, !state.isPaused,
                            state.policy.isStoppedAtReader
                        {
                            break
                        }
                        continue
                    }
                }
                retryAt = nil
                condition.wait()
            }
            guard !state.isStopping else { return nil }
            state.isRequested = false
            state.isRunning = true
            return state.policy.generation
        }
    }
}
