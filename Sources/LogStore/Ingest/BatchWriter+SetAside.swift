import Glibc

/// Commits that find the event a batch fails on, instead of retrying the whole batch forever.
///
/// A batch fails for one of two reasons. The store fails everything (busy, disk full, I/O
/// error: ``failsEverything(_:)``): every event would fail alike, none is at fault, and the
/// batch is kept for a retry. Or one event fails on its own (a body whose file cannot be
/// written, a value SQLite refuses): retrying it fails again, every time, and holds every later
/// event behind it. Once commits have failed ``roundsBeforeIsolating`` rounds in a row for at
/// least ``isolationDelay`` (a cause that clears, a body directory briefly in the way, gets those
/// retries), the batch is split in halves, committed half by half, down to the single
/// events that still fail: those are set aside (counted, reported, not retried). One bad event
/// among n costs about 2·log₂(n) transactions.
extension BatchWriter {
    /// Whole-batch retries before the event at fault is searched for.
    static let roundsBeforeIsolating = 2
    /// How long commits fail before the event at fault is searched for.
    static let isolationDelay: Duration = .milliseconds(500)

    /// Whether failures have lasted long enough to look for the event at fault.
    private var mayIsolate: Bool {
        guard failedRounds >= Self.roundsBeforeIsolating, let failingSince else { return false }
        return timer.elapsed() - failingSince >= Self.isolationDelay
    }

    /// Records the outcome of a round for ``mayIsolate``.
    func recordRound(failed: Bool) {
        if failed {
            failedRounds += 1
            if failingSince == nil { failingSince = timer.elapsed() }
        } else {
            failedRounds = 0
            failingSince = nil
        }
    }

    /// An event set aside, with the error it failed with on its own.
    struct RejectedEvent {
        /// Its place in the batch.
        var index: Int
        var event: LogStore.Event
        var error: any Error
    }

    /// Where a commit stopped because the store failed everything.
    struct CommitFailure {
        /// The first event not committed: it and those after it are to be retried.
        var index: Int
        var error: any Error
    }

    /// Commits `events[range]` in one transaction or, when an event fails on its own, in parts
    /// that leave it out (appended to `rejected`).
    ///
    /// - Returns: whether `dropNotice` was committed (only with the whole range at once), and
    ///   where the commit stopped when the store failed everything, or when commits have not
    ///   failed long enough yet (nil when all of `range` was committed or set
    ///   aside).
    func commitSettingAside(
        _ events: [LogStore.Event?], _ range: Range<Int>, prepared: [TaskPreparation.PreparedTask?]?,
        dropNotice: LogStore.Event.MessageCreated?, rejected: inout [RejectedEvent]
    ) -> (noticeCommitted: Bool, failure: CommitFailure?) {
        do {
            try commit(events[range], prepared: prepared, dropNotice: dropNotice)
            return (true, nil)
        } catch {
            guard !Self.failsEverything(error), mayIsolate else {
                return (false, CommitFailure(index: range.lowerBound, error: error))
            }
            return (false, isolate(events, range, failedWith: error, prepared: prepared, rejected: &rejected))
        }
    }

    /// `events[range]` failed as a whole with a per-event `error`: commits its halves, and so on
    /// down to single events, which are set aside.
    private func isolate(
        _ events: [LogStore.Event?], _ range: Range<Int>, failedWith error: any Error,
        prepared: [TaskPreparation.PreparedTask?]?, rejected: inout [RejectedEvent]
    ) -> CommitFailure? {
        guard range.count > 1 else {
            // A hole cannot fail on its own: the failure is the store's, retry.
            guard let event = events[range.lowerBound] else { return CommitFailure(index: range.lowerBound, error: error) }
            rejected.append(RejectedEvent(index: range.lowerBound, event: event, error: error))
            return nil
        }
        let middle = range.lowerBound + range.count / 2
        for half in [range.lowerBound..<middle, middle..<range.upperBound] {
            do {
                try commit(events[half], prepared: prepared, dropNotice: nil)
            } catch {
                if Self.failsEverything(error) { return CommitFailure(index: half.lowerBound, error: error) }
                if let failure = isolate(events, half, failedWith: error, prepared: prepared, rejected: &rejected) {
                    return failure
                }
            }
        }
        return nil
    }

    /// Whether `error` says the store cannot commit anything now (so no event is at fault):
    /// a lock held elsewhere, a full disk or database, an I/O error, a damaged or read-only
    /// database, no memory.
    static let directoryFailures: Set<Int32> = [
        ENOSPC, EDQUOT, EIO, EROFS, EACCES, EPERM, EMFILE, ENFILE, ENOMEM, ENOENT, ENOTDIR,
    ]

    static func failsEverything(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return error.failsEveryStatement }
        guard let error = error as? LogStoreError else { return false }
        let kind = error.kind
        if kind == .database || kind == .writeFailed {
            guard let cause = error.underlyingError else { return false }
            return failsEverything(cause)
        }
        // A body file that cannot be written because the store's directory fails (full, out of
        // descriptors or memory, read-only, removed, wrong permissions, I/O) fails every other
        // body the same way, so none is set aside for it; other errors (a file too large, a
        // name in the way) are one body's own.
        guard kind == .fileSystem, let code = error.errno else { return false }
        return directoryFailures.contains(code)
    }
}
