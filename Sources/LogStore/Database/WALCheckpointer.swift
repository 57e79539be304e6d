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
/// stayed within the automatic threshold plus one.
///
/// A reader on an older snapshot (a long query, an export, another process) stops every copy at
/// that snapshot and keeps the WAL from starting over until it moves on. The commit copies only
/// a small rest itself: while a copy stops short at a reader, copying inline gains nothing, and
/// once the reader has moved on, the backlog it held (everything logged meanwhile) is the
/// thread's to copy. SQLite's automatic checkpoint, and this class before, copied it in the
/// first commit after the reader left, and every logging thread waited for it. Only past
/// ``restartFrames`` plus ``checkpointFrames``, with no reader in the way, does the commit copy
/// the rest itself whatever its size, so a thread that cannot keep up never leaves the WAL
/// unbounded.
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
        /// The WAL's frames after the last commit: fewer after it, and the WAL started over.
        var framesAtCommit = 0
        /// The last checkpoint of this WAL (the thread's or the writer's); nil when the WAL
        /// started over since.
        var lastCopy: Copy?
        var isRunning = false
        /// The writer is checkpointing itself; no pass starts meanwhile.
        var isPaused = false
        var isStopping = false
        /// The thread runs (set by the thread itself: `detach` waits only for a thread that began).
        var hasBegun = false
        var hasEnded = false
    }

    /// What one checkpoint found in the WAL and copied of it.
    private struct Copy {
        /// The WAL's frames when it began, and how many of them are in the database file now.
        var frames: Int
        var copied: Int
        /// What was left to copy when it began.
        var backlog: Int
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
            nameCurrentThread("logstore-ckpt")
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
        guard frames >= checkpointFrames else {
            condition.withLock { noteCommit(frames: frames) }
            return
        }
        let copyHere = condition.withLock { () -> Bool in
            noteCommit(frames: frames)
            guard frames >= restartFrames, shouldCopyInline(frames: frames) else {
                requestPass(frames: frames)
                return false
            }
            return true
        }
        guard copyHere else { return }
        // As SQLite's automatic checkpoint does, a failure leaves the frames for later.
        let copy = exclusively { Self.checkpoint(database) }
        // The next transaction starts the WAL over (or, with a reader in the way, grows it).
        condition.withLock {
            state.framesAtRequest = 0
            record(copy)
        }
    }

    /// Whether the commit that brought the WAL to `frames` (past ``restartFrames``) copies the
    /// rest itself. With `condition` locked.
    private func shouldCopyInline(frames: Int) -> Bool {
        guard let last = state.lastCopy else {
            // Nothing copied of this WAL yet: the first pass goes to the thread, unless the WAL
            // is already past its hard bound.
            return frames >= restartFrames + checkpointFrames
        }
        // The last copy stopped at a reader's snapshot: another now would stop there too. The
        // thread's next pass finds out when the reader has moved on, and copies its backlog.
        if last.copied < last.frames { return false }
        let uncopied = frames - last.copied
        if uncopied <= checkpointFrames { return true }
        // Past the hard bound, the thread keeps the copy while its passes shrink what is left
        // (after a reader's backlog: what was logged while the thread copied it, and so on);
        // the commit copies the rest only when a pass did not.
        return frames >= restartFrames + checkpointFrames && uncopied >= last.backlog
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

    /// Keeps a checkpoint's outcome, with what it had to copy. With `condition` locked.
    private func record(_ copy: (frames: Int, copied: Int)?) {
        guard let copy else { return }
        let copiedBefore = state.lastCopy.map { min($0.copied, copy.frames) } ?? 0
        state.lastCopy = Copy(frames: copy.frames, copied: copy.copied, backlog: copy.frames - copiedBefore)
    }

    /// Records a commit's WAL size, noticing a WAL that started over. With `condition` locked.
    private func noteCommit(frames: Int) {
        if frames < state.framesAtCommit {
            state.framesAtRequest = 0
            state.lastCopy = nil
        }
        state.framesAtCommit = frames
    }

    /// Asks the thread for a pass, once per ``checkpointFrames`` the WAL grew by: each pass costs
    /// two fsyncs, and a pass after every commit made four times as many as SQLite's own
    /// checkpoint. While the last copy stopped at a reader, after every commit: such a pass
    /// copies nothing and costs no fsync until the reader has moved on, and then it should
    /// begin at once. With `condition` locked.
    private func requestPass(frames: Int) {
        let stoppedAtReader = state.lastCopy.map { $0.copied < $0.frames } ?? false
        guard !state.isRequested, stoppedAtReader || frames >= state.framesAtRequest + checkpointFrames else { return }
        state.isRequested = true
        state.framesAtRequest = frames
        condition.broadcast()
    }

    private func run() {
        condition.withLock { state.hasBegun = true }
        while waitForRequest() {
            let copy = Self.checkpoint(connection.handle)
            condition.withLock {
                state.isRunning = false
                record(copy)
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
