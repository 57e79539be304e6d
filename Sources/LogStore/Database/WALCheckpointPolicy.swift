/// When the writer's commits ask ``WALCheckpointer``'s thread for a pass, and when a commit
/// copies the WAL into the database file itself: the decisions alone, from the WAL's size after
/// each commit and the outcome of each checkpoint, so the checkpointer keeps only the thread and
/// its lock.
///
/// - A pass is asked for each time the WAL grew by ``checkpointFrames``.
/// - At ``restartFrames`` the commit copies what is left itself, so the next transaction can
///   start the WAL over (SQLite starts it over only when a transaction begins with every frame
///   copied, which a writer under steady load never finds). Without readers on older snapshots
///   the WAL stays within ``restartFrames`` plus one transaction.
/// - While the last copy stopped at a reader's snapshot (a long query, an export, another
///   process) and more than twice ``restartFrames`` wait behind it, no commit copies: another
///   copy would stop there too. The thread tries again until the reader has moved on, and then
///   copies everything logged meanwhile, which the first commit after the reader left used to
///   copy while every logging thread waited. A shorter backlog (a short read's) a commit copies
///   as before.
/// - Once the thread has copied such a backlog, the WAL may grow by as much again before a commit
///   copies what is left whatever its size; a commit copies earlier when what is left is at most
///   ``checkpointFrames``.
struct WALCheckpointPolicy {
    /// Frames the WAL grows by between two passes asked of the thread.
    let checkpointFrames: Int
    /// Frames in the WAL at which a commit copies what is left itself.
    let restartFrames: Int

    /// What a commit should do, from ``committed(frames:)``.
    enum Decision: Equatable {
        case nothing
        /// Ask the thread for a pass (``passRequested(atFrames:)`` once it is asked).
        case requestPass
        /// Copy what is left in the commit (``recordCopyHere(_:)`` with the outcome).
        case copyHere
    }

    /// Counts the WAL's starts over that commits noticed: a pass begun before one describes a
    /// WAL that is gone, and its outcome is dropped.
    private(set) var generation = 0
    private var framesAtCommit = 0
    private var framesAtRequest = 0
    private var lastCopy: (frames: Int, copied: Int)?
    /// Set once the thread has copied a reader's backlog: the WAL's size at which a commit copies
    /// what is left, whatever it is (0: ``restartFrames``).
    private var copyHereAt = 0
    private var failedCheckpoints = 0
    /// Copies in a row that stopped at a reader without copying anything more.
    private var copiesWithoutProgress = 0

    init(checkpointFrames: Int, restartFrames: Int) {
        self.checkpointFrames = max(1, checkpointFrames)
        self.restartFrames = max(self.checkpointFrames, restartFrames)
    }

    /// Whether the last copy stopped short at a reader's snapshot: the thread tries again on its
    /// own, since no commit may come to ask once the reader has moved on.
    var isStoppedAtReader: Bool {
        lastCopy.map { $0.copied < $0.frames } ?? false
    }

    /// How long the thread waits before it tries again while ``isStoppedAtReader``: 0.1 s,
    /// doubling while tries copy nothing more, up to 1.6 s. A try behind a reader still reads
    /// the WAL's index and sorts its frames, which for a WAL grown large behind a reader that
    /// stays for hours would keep a core busy.
    var retryDelay: Double {
        0.1 * Double(1 << min(copiesWithoutProgress, 4))
    }

    /// A commit left `frames` in the WAL.
    mutating func committed(frames: Int) -> Decision {
        if frames < framesAtCommit { startOver() }
        framesAtCommit = frames
        guard frames >= checkpointFrames else { return .nothing }
        if frames >= restartFrames, copiesHere(frames: frames) { return .copyHere }
        return frames >= framesAtRequest + checkpointFrames ? .requestPass : .nothing
    }

    /// The thread was asked for a pass with `frames` in the WAL.
    mutating func passRequested(atFrames frames: Int) {
        framesAtRequest = frames
    }

    /// A checkpoint ended: the WAL's frames when it began and how many of them are now in the
    /// database file, or nil when it failed (another process's checkpoint under way, an I/O
    /// error). `generation` is ``generation`` when it began.
    mutating func recordCopy(_ copy: (frames: Int, copied: Int)?, generation: Int) {
        guard generation == self.generation else { return }
        guard let copy else {
            // Failures tell nothing of the WAL; after a few, what the last copy said is stale
            // (a reader long gone), and commits copy at the restart mark again.
            failedCheckpoints += 1
            if failedCheckpoints >= 3 { lastCopy = nil }
            return
        }
        failedCheckpoints = 0
        if let last = lastCopy, copy.copied < copy.frames, copy.copied <= last.copied {
            copiesWithoutProgress += 1
        } else {
            copiesWithoutProgress = 0
        }
        if let last = lastCopy, last.copied < last.frames, copy.copied == copy.frames {
            // The reader moved on and this copy took what it held back: more than the WAL holds
            // without one, and the WAL may grow by as much again while the thread catches up.
            let backlog = copy.frames - min(last.copied, copy.frames)
            if backlog > 2 * restartFrames { copyHereAt = copy.frames + backlog }
        }
        lastCopy = copy
    }

    /// The commit copied what was left itself (``Decision/copyHere``).
    mutating func recordCopyHere(_ copy: (frames: Int, copied: Int)?) {
        // The next transaction starts the WAL over; if a reader keeps it from that, the WAL's
        // growth from here asks for passes again.
        framesAtRequest = 0
        recordCopy(copy, generation: generation)
        // Caught up with a reader's backlog: the usual marks again.
        if let copy, copy.copied == copy.frames { copyHereAt = 0 }
    }

    private func copiesHere(frames: Int) -> Bool {
        let left = frames - (lastCopy?.copied ?? 0)
        // The thread is catching up with what was logged while it copied a reader's backlog:
        // a commit copies only a small rest, or everything once the WAL has grown by the backlog
        // again (the thread cannot keep up).
        if copyHereAt > 0 { return left <= checkpointFrames || frames >= copyHereAt }
        // What the WAL holds without a long reader (the restart mark and a transaction or two,
        // a short read's snapshot): copied here, as SQLite's automatic checkpoint would.
        if left <= 2 * restartFrames { return true }
        // A long reader's backlog (two copies in a row stopped at the same frame; a live view's
        // polls move on between two): another copy would stop at its snapshot too, and once it
        // has moved on, the thread copies it without holding up the logging threads.
        return !(isStoppedAtReader && copiesWithoutProgress > 0)
    }

    private mutating func startOver() {
        generation &+= 1
        framesAtRequest = 0
        lastCopy = nil
        copyHereAt = 0
        failedCheckpoints = 0
        copiesWithoutProgress = 0
    }
}
