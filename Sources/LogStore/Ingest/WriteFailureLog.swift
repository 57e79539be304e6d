import Synchronization

/// What went wrong writing since the store opened, and what of it was reported: the counts and
/// the last failure ``LogStore/Info`` shows, and the rule that each failure reaches
/// ``LogStore/Configuration/onWriteError`` once (the same commit failure round after round until
/// a commit succeeds; a failing size check or index step once per cause).
///
/// The writer's hooks run on the caller's thread (the writer's), never under the lock.
final class WriteFailureLog: Sendable {
    /// The writer's side work whose failures are reported once per cause.
    enum SideWork: CaseIterable {
        /// Measuring the store for its size limit.
        case sizeCheck
        /// A step of the full-text index.
        case indexStep
    }

    private struct State {
        var count = 0
        var last: LogStoreError?
        var rejectedEvents = 0
        var blobDeletionFailures = 0
        /// The commit failure reported last, until a commit succeeds.
        var reportedCommitFailure: String?
        /// The side work's failure reported last, per kind, until it succeeds again.
        var reportedSideFailures: [SideWork: String] = [:]
        /// The full-text index was found damaged: the writer no longer indexes.
        var isIndexDamaged = false
    }

    private let state = Mutex(State())
    private let onWriteError: (@Sendable (LogStoreError) -> Void)?

    init(onWriteError: (@Sendable (LogStoreError) -> Void)?) {
        self.onWriteError = onWriteError
    }

    /// Failures counted since the store opened, and the latest.
    var failures: (count: Int, last: LogStoreError?) { state.withLock { ($0.count, $0.last) } }

    /// Events set aside and body files not deleted, since the store opened.
    var setAside: (rejectedEvents: Int, blobDeletionFailures: Int) {
        state.withLock { ($0.rejectedEvents, $0.blobDeletionFailures) }
    }

    var isIndexDamaged: Bool { state.withLock { $0.isIndexDamaged } }

    /// A commit failed: counted, and reported unless it is the failure reported last.
    func commitFailed(_ error: LogStoreError) {
        let isNew = state.withLock { state -> Bool in
            state.count += 1
            state.last = error
            defer { state.reportedCommitFailure = error.description }
            return state.reportedCommitFailure != error.description
        }
        if isNew { onWriteError?(error) }
    }

    /// A commit succeeded: the next failure is news again.
    func committed() {
        state.withLock { $0.reportedCommitFailure = nil }
    }

    /// The database was found damaged (the writer reports this once): counted and reported.
    func databaseDamaged(_ damage: LogStoreError) {
        state.withLock { state in
            state.count += 1
            state.last = damage
        }
        onWriteError?(damage)
    }

    /// The full-text index was found damaged: reported, once.
    func searchIndexDamaged(_ damage: LogStoreError) {
        let isNew = state.withLock { state -> Bool in
            defer { state.isIndexDamaged = true }
            return !state.isIndexDamaged
        }
        if isNew { onWriteError?(damage) }
    }

    /// Events set aside because each failed on its own: counted and reported, each.
    func eventsRejected(_ errors: [LogStoreError]) {
        guard !errors.isEmpty else { return }
        state.withLock { state in
            state.rejectedEvents += errors.count
            state.count += errors.count
            state.last = errors.last
        }
        if let onWriteError { for error in errors { onWriteError(error) } }
    }

    /// Body files a transaction's end could not delete: counted and reported, each.
    func blobDeletionsFailed(_ failures: [LogStoreError]) {
        guard !failures.isEmpty else { return }
        state.withLock { $0.blobDeletionFailures += failures.count }
        if let onWriteError { for failure in failures { onWriteError(failure) } }
    }

    /// Side work failed: reported unless it is the failure of that work reported last.
    func failed(_ work: SideWork, _ error: LogStoreError) {
        let isNew = state.withLock { state -> Bool in
            defer { state.reportedSideFailures[work] = error.description }
            return state.reportedSideFailures[work] != error.description
        }
        if isNew { onWriteError?(error) }
    }

    /// Side work succeeded: its next failure is news again.
    func succeeded(_ work: SideWork) {
        state.withLock { $0.reportedSideFailures[work] = nil }
    }
}
