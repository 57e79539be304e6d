import Testing
@testable import LogStore

/// The checkpointer's decisions alone, commit by commit: the processes in `WALCheckpointTests`
/// and `WALBacklogTests` show the outcome on a real WAL; these show each rule, including the
/// cases a real store reaches only by chance (a short reader, failed checkpoints).
@Suite struct WALCheckpointPolicyTests {
    /// A store's figures at a 16 MB limit: a pass every 122 pages, the restart mark at 244.
    func policy() -> WALCheckpointPolicy {
        WALCheckpointPolicy(checkpointFrames: 122, restartFrames: 244)
    }

    /// Two copies in a row stopped at frame 100, 600 frames behind.
    func behindALongReader() -> WALCheckpointPolicy {
        var policy = policy()
        policy.recordCopy((frames: 130, copied: 100), generation: policy.generation)
        policy.recordCopy((frames: 700, copied: 100), generation: policy.generation)
        #expect(policy.isBehindLongReader)
        return policy
    }

    @Test func withoutReadersACommitCopiesAtTheRestartMark() {
        var policy = policy()
        #expect(policy.committed(frames: 60) == .nothing)
        #expect(policy.committed(frames: 130) == .requestPass)
        policy.passRequested(atFrames: 130)
        #expect(policy.committed(frames: 200) == .nothing)
        policy.recordCopy((frames: 200, copied: 200), generation: policy.generation)
        #expect(policy.committed(frames: 250) == .copyHere)
        policy.recordCopyHere((frames: 250, copied: 250))
        // The next transaction started the WAL over.
        #expect(policy.committed(frames: 40) == .nothing)
        #expect(policy.generation == 1)
    }

    @Test func aShortReadersBacklogIsStillCopiedByTheCommit() {
        var policy = policy()
        policy.passRequested(atFrames: 130)
        // A read held frame 100 while the thread copied.
        policy.recordCopy((frames: 130, copied: 100), generation: policy.generation)
        #expect(policy.isStoppedAtReader)
        #expect(policy.committed(frames: 400) == .copyHere)
        // A live view's polls: each copy stops at a later frame, and a commit copies any rest.
        policy.recordCopyHere((frames: 400, copied: 390))
        policy.recordCopy((frames: 900, copied: 800), generation: policy.generation)
        #expect(!policy.isBehindLongReader)
        #expect(policy.committed(frames: 1_500) == .copyHere)
    }

    @Test func aLongReadersBacklogIsLeftToTheThread() {
        var policy = policy()
        policy.passRequested(atFrames: 130)
        policy.recordCopy((frames: 130, copied: 100), generation: policy.generation)
        // One copy stopped at a reader: perhaps a short one, copied here as before.
        #expect(policy.committed(frames: 700) == .copyHere)
        policy.recordCopyHere((frames: 700, copied: 100))
        // Stopped at the same frame again: with more than twice the restart mark behind the
        // reader, commits only ask for passes, and the thread's tries back off.
        #expect(policy.isBehindLongReader)
        #expect(policy.committed(frames: 800) == .requestPass)
        policy.passRequested(atFrames: 800)
        policy.recordCopy((frames: 800, copied: 100), generation: policy.generation)
        #expect(policy.retryDelay > 0.2)
        #expect(policy.committed(frames: 5_000) == .requestPass)
        policy.passRequested(atFrames: 5_000)

        // The reader moved on and the thread copied its 4,900 frames while 1,000 more came.
        policy.recordCopy((frames: 5_000, copied: 5_000), generation: policy.generation)
        #expect(!policy.isStoppedAtReader && !policy.isBehindLongReader)
        #expect(policy.committed(frames: 6_000) == .requestPass)
        policy.passRequested(atFrames: 6_000)
        // While the thread catches up, a commit copies only a small rest.
        policy.recordCopy((frames: 6_000, copied: 6_000), generation: policy.generation)
        #expect(policy.committed(frames: 6_200) != .copyHere)
        policy.recordCopy((frames: 6_150, copied: 6_150), generation: policy.generation)
        #expect(policy.committed(frames: 6_200) == .copyHere)
        policy.recordCopyHere((frames: 6_200, copied: 6_200))
        // Caught up: the usual marks again (the WAL did not start over: a short read was in
        // the way).
        #expect(policy.committed(frames: 6_500) == .copyHere)
    }

    /// The long reader leaves while a live view polls: the thread's pass stops at a poll's
    /// snapshot, far past the reader's, and the commit still leaves the rest to the thread.
    @Test func aCatchUpStoppedByAShortReadStaysWithTheThread() {
        var policy = behindALongReader()
        policy.recordCopy((frames: 5_000, copied: 4_900), generation: policy.generation)
        #expect(!policy.isBehindLongReader)
        #expect(policy.committed(frames: 6_000) != .copyHere)
    }

    @Test func aThreadThatCannotKeepUpStillBoundsTheWAL() {
        var policy = policy()
        policy.recordCopy((frames: 130, copied: 100), generation: policy.generation)
        policy.recordCopy((frames: 5_000, copied: 5_000), generation: policy.generation)
        // The thread copied a 4,900-frame backlog: the WAL may grow by as much again, no more.
        #expect(policy.committed(frames: 9_000) != .copyHere)
        #expect(policy.committed(frames: 9_900) == .copyHere)
    }

    /// Catching up when a new long reader comes: at the limit a commit's copy would stop at the
    /// reader too, and once the reader leaves it would copy its whole backlog.
    @Test func aNewLongReaderWhileCatchingUpKeepsTheCommitsOff() {
        var policy = policy()
        policy.recordCopy((frames: 130, copied: 100), generation: policy.generation)
        policy.recordCopy((frames: 5_000, copied: 5_000), generation: policy.generation)
        policy.recordCopy((frames: 6_000, copied: 5_400), generation: policy.generation)
        policy.recordCopy((frames: 7_000, copied: 5_400), generation: policy.generation)
        #expect(policy.isBehindLongReader)
        #expect(policy.committed(frames: 10_000) != .copyHere)
    }

    @Test func aPassBegunBeforeTheWALStartedOverIsDropped() {
        var policy = policy()
        let before = policy.generation
        #expect(policy.committed(frames: 300) == .copyHere)
        policy.recordCopyHere((frames: 300, copied: 300))
        _ = policy.committed(frames: 20)
        // A pass that began on the old WAL reports a reader's stop that no longer exists.
        policy.recordCopy((frames: 300, copied: 10), generation: before)
        #expect(!policy.isStoppedAtReader)
    }

    /// Another process's writer started the WAL over, and this writer's first commit on it was
    /// larger than its last one: the thread's copy sees the WAL shrink.
    @Test func aWALStartedOverElsewhereIsNoticedByTheCopy() {
        var policy = behindALongReader()
        policy.recordCopy((frames: 60, copied: 60), generation: policy.generation)
        #expect(policy.generation == 1)
        #expect(!policy.isBehindLongReader)
    }

    @Test func failedCheckpointsForgetTheLongReaderAfterThree() {
        var policy = behindALongReader()
        #expect(policy.committed(frames: 800) != .copyHere)
        for _ in 0..<2 { policy.recordCopy(nil, generation: policy.generation) }
        #expect(policy.isBehindLongReader)
        policy.recordCopy(nil, generation: policy.generation)
        #expect(!policy.isBehindLongReader)
        #expect(policy.committed(frames: 810) == .copyHere)
    }

    @Test func triesBehindAReaderBackOffToOnePointSixSeconds() {
        var policy = policy()
        policy.recordCopy((frames: 130, copied: 100), generation: policy.generation)
        #expect(policy.retryDelay == 0.1)
        for frames in stride(from: 200, through: 2_000, by: 100) {
            policy.recordCopy((frames: frames, copied: 100), generation: policy.generation)
        }
        #expect(policy.retryDelay == 1.6)
        policy.recordCopy((frames: 2_100, copied: 150), generation: policy.generation)
        #expect(policy.retryDelay == 0.1)
    }
}
