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
/// (sqlite.org/c3ref/wal_checkpoint_v2.html).
///
/// A passive checkpoint cannot start the WAL over. SQLite does that when a write transaction
/// begins with every frame copied, and under steady load the writer has begun its next
/// transaction before a background pass ends. So once the WAL holds ``restartFrames``, the
/// commit that crossed it waits for the pass under way and copies what is left itself, as the
/// automatic checkpoint would; the writer's next transaction then starts the WAL over. Without
/// readers on older snapshots the WAL stays within ``restartFrames`` plus one transaction, as it
/// stayed within the automatic threshold plus one. A reader on an older snapshot (a long query,
/// an export, another process) stops every copy at that snapshot and keeps the WAL from starting
/// over until it moves on, as it did with the automatic checkpoint.
///
/// A checkpoint that fails leaves its frames in the WAL for the next one, as SQLite's automatic
/// checkpoint does; another process's checkpoint under way is not a failure.
final class WALCheckpointer: @unchecked Sendable {
    // Safe: `state` is read and written only with `condition` locked. `connection` is used by
    // `init`, then only by the thread (`run()`, after `Thread.start` ordered it), which closes it
    // before it ends; never attached, it is closed by `deinit` once nothing else holds it.
    private let condition = NSCondition()
    private var state = State()
    private let connection: Connection
    /// Frames in the WAL after a commit that start a background pass.
    let checkpointFrames: Int
    /// Frames in the WAL after a commit at which that commit copies what is left itself.
    let restartFrames: Int

    private struct State {
        var isRequested = false
        /// The WAL's frames when the last pass was asked for (0 after the writer's own copy).
        var framesAtRequest = 0
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
        self.checkpointFrames = max(1, checkpointFrames)
        self.restartFrames = max(self.checkpointFrames, restartFrames)
    }

    /// Makes `writer`'s commits report the WAL's size here, in place of SQLite's automatic
    /// checkpoint, and starts the thread. `writer` must be closed or given back with
    /// ``detach(from:)`` before this object goes.
    func attach(to writer: Connection) {
        let thread = Thread { [self] in
            // Set on the thread (a name set before the start does not reach the kernel on Linux),
            // within the kernel's 15 bytes.
            Thread.current.name = "logstore-ckpt"
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
        if frames >= restartFrames {
            // The result is SQLite's automatic checkpoint's: a failure leaves the frames for later.
            exclusively { _ = sqlite3_wal_checkpoint_v2(database, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
            // The next transaction starts the WAL over (or, with a reader in the way, grows it).
            condition.withLock { state.framesAtRequest = 0 }
        } else if frames >= checkpointFrames {
            // One pass per `checkpointFrames` the WAL grew by: each pass costs two fsyncs, and
            // a pass after every commit made four times as many as SQLite's own checkpoint.
            condition.withLock {
                // A smaller WAL started over since.
                if frames < state.framesAtRequest { state.framesAtRequest = 0 }
                guard !state.isRequested, frames >= state.framesAtRequest + checkpointFrames else { return }
                state.isRequested = true
                state.framesAtRequest = frames
                condition.broadcast()
            }
        }
    }

    private func run() {
        condition.withLock { state.hasBegun = true }
        while waitForRequest() {
            _ = sqlite3_wal_checkpoint_v2(connection.handle, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            condition.withLock {
                state.isRunning = false
                condition.broadcast()
            }
        }
        connection.close()
        condition.withLock {
            state.hasEnded = true
            condition.broadcast()
        }
    }

    /// Waits for a request and marks its pass as running; false when the thread should end.
    private func waitForRequest() -> Bool {
        condition.withLock {
            while !state.isStopping && (!state.isRequested || state.isPaused) { condition.wait() }
            guard !state.isStopping else { return false }
            state.isRequested = false
            state.isRunning = true
            return true
        }
    }
}
