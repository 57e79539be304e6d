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
/// - Behind a long reader (a long query, an export, another process holding a snapshot: two
///   copies in a row stopped at the same frame, where a live view's polls move on between two)
///   with more than ``inlineFrames`` behind it, no commit copies: another copy would stop there
///   too. The thread tries again until the reader has moved on, and then copies everything logged
///   meanwhile, which the first commit after the reader left used to copy while every logging
///   thread waited. A short read's backlog a commit copies as before.
/// - Once a pass has copied more than ``inlineFrames`` (a reader's backlog), the thread is
///   catching up: a commit copies only a rest of at most ``checkpointFrames``, or whatever is left
///   once the WAL has grown by that pass's frames again, so a thread that cannot keep up still
///   leaves the WAL bounded.
struct WALCheckpointPolicy {
    /// Frames the WAL grows by between two passes asked of the thread.
    let checkpointFrames: Int
    /// Frames in the WAL at which a commit copies what is left itself.
    let restartFrames: Int
    /// The most a commit copies behind a long reader or while the thread catches up: twice
    /// ``restartFrames``, what the WAL holds without readers (the mark and a transaction or two).
    var inlineFrames: Int { 2 * restartFrames }

    /// What a commit should do, from ``committed(frames:)``.
    enum Decision: Equatable {
        case nothing
        /// Ask the thread for a pass (``passRequested(atFrames:)`` once it is asked).
        case requestPass
        /// Copy what is left in the commit (``recordCopyHere(_:)`` with the outcome).
        case copyHere
    }

    /// Counts the WAL's starts over: a pass begun before one describes a WAL that is gone, and
    /// its outcome is dropped.
    private(set) var generation = 0
    private var framesAtCommit = 0
    private var framesAtRequest = 0
    private var lastCopy: (frames: Int, copied: Int)?
    /// While the thread catches up with a reader's backlog, the WAL's size at which a commit
    /// copies whatever is left (0: not catching up).
    private var catchUpLimit = 0
    private var failedCheckpoints = 0
    /// Copies in a row that stopped at the same frame as the copy before them.
    private var copiesWithoutProgress = 0

    init(checkpointFrames: Int, restartFrames: Int) {
        self.checkpointFrames = max(1, checkpointFrames)
        self.restartFrames = max(self.checkpointFrames, restartFrames)
    }

    /// Two copies in a row stopped at the same frame, and checkpoints have not failed three times
    /// since: the reader they hid may be long gone, and commits copy at the restart mark again.
    var isBehindLongReader: Bool {
        copiesWithoutProgress > 0 && failedCheckpoints < 3
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
            // Failures tell nothing of the WAL (see ``isBehindLongReader``).
            failedCheckpoints += 1
            return
        }
        failedCheckpoints = 0
        // A WAL started over that no commit has seen yet (another process's writer did it).
        if let last = lastCopy, copy.frames < last.frames { startOver() }
        let previous = lastCopy ?? (frames: 0, copied: 0)
        let stopped = copy.copied < copy.frames
        let previousStopped = previous.copied < previous.frames
        let madeProgress = copy.copied > previous.copied
        copiesWithoutProgress = stopped && previousStopped && !madeProgress ? copiesWithoutProgress + 1 : 0
        let copiedNow = copy.copied - min(previous.copied, copy.copied)
        if copiedNow > inlineFrames {
            // A reader's backlog: the WAL may grow by as much again while the thread catches up.
            let limit = copy.frames + copiedNow
            catchUpLimit = catchUpLimit == 0 ? limit : min(catchUpLimit, limit)
        }
        lastCopy = copy
    }

    /// The commit copied what was left itself (``Decision/copyHere``).
    mutating func recordCopyHere(_ copy: (frames: Int, copied: Int)?) {
        // The next transaction starts the WAL over; if a reader keeps it from that, the WAL's
        // growth from here asks for passes again.
        framesAtRequest = 0
        recordCopy(copy, generation: generation)
        // Caught up: the usual marks again.
        if let copy, copy.copied == copy.frames { catchUpLimit = 0 }
    }

    private func copiesHere(frames: Int) -> Bool {
        let left = frames - (lastCopy?.copied ?? 0)
        if catchUpLimit > 0 {
            return left <= checkpointFrames || (frames >= catchUpLimit && !isBehindLongReader)
        }
        // A long reader's backlog the thread copies once the reader has moved on.
        return left <= inlineFrames || !isBehindLongReader
    }

    private mutating func startOver() {
        generation &+= 1
        framesAtCommit = 0
        framesAtRequest = 0
        lastCopy = nil
        catchUpLimit = 0
        failedCheckpoints = 0
        copiesWithoutProgress = 0
    }
}
