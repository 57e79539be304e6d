/// How far a sweep has got, as ``LogStore/sweep(progress:)`` reports it to its callback: the
/// phase it is in and, within that phase, the units done and the units it takes.
///
/// A sweep's phases come in the order of ``Phase``'s cases; a phase whose work is known to be
/// nothing is skipped, except the search for orphan files and empty sessions, which is always
/// reported (what it finds is only known once it has looked). Counts are per phase: each phase starts again from zero. There is no fraction of
/// the whole sweep: how much a later phase has to do depends on what the earlier ones removed
/// (trimming to the size limit is judged after the old data is gone), so any overall figure
/// would be a guess.
public struct SweepProgress: Sendable, Hashable {
    /// What the sweep is doing, in the order a sweep does it.
    public enum Phase: String, Sendable, Hashable, Codable, CaseIterable {
        /// Removing messages older than ``LogStore/Configuration/maxAge``, with the tasks they
        /// describe.
        case removingOldMessages
        /// Removing the tasks older than ``LogStore/Configuration/maxAge`` that are left (those
        /// still pending have no message).
        case removingOldTasks
        /// Dropping the bodies of the oldest tasks while blobs take more than their share of
        /// ``LogStore/Configuration/sizeLimit``.
        case droppingBodies
        /// Removing the oldest messages (and their tasks) while the store is past 85 % of
        /// ``LogStore/Configuration/sizeLimit``.
        case trimmingMessages
        /// Removing blob files without a row (left by a crash) and stale temporary files.
        case removingOrphanFiles
        /// Removing old sessions that hold no message or task any more.
        case removingEmptySessions
        /// Merging the full-text index's segments, so the pages its deleted words held are freed.
        /// Reported by stores before schema 11 only: since, the index is in partitions that the
        /// sweep drops whole once their messages are gone, within ``givingSpaceBack``.
        case compactingSearchIndex
        /// Giving free pages back to the file system and emptying the WAL.
        case givingSpaceBack
        /// Done: the report is recorded. Always the last report of a sweep that succeeds.
        case finished

        /// What ``SweepProgress/completed`` and ``SweepProgress/total`` count in this phase.
        public var unit: Unit {
            switch self {
            case .removingOldMessages, .trimmingMessages: .messages
            case .removingOldTasks: .tasks
            case .droppingBodies: .bytes
            case .removingOrphanFiles: .files
            case .removingEmptySessions: .sessions
            case .compactingSearchIndex, .givingSpaceBack: .pages
            case .finished: .messages
            }
        }
    }

    /// What a phase counts.
    public enum Unit: String, Sendable, Hashable, Codable {
        /// Message rows, technical messages of network tasks included.
        case messages
        /// Network task rows.
        case tasks
        /// Stored bytes of blobs.
        case bytes
        /// Files in the store's directory.
        case files
        /// Session rows.
        case sessions
        /// Database pages.
        case pages
    }

    /// The current phase.
    public var phase: Phase
    /// Units done in this phase (in ``Phase/unit``); never decreases within a phase.
    public var completed: Int64
    /// Units this phase takes, as estimated when it started (from the indexes and the size
    /// targets, so rows logged or removed meanwhile by another process can make it slightly
    /// off); `nil` when it is not known cheaply.
    public var total: Int64?

    /// `completed / total` for the current phase, between 0 and 1; 1 once ``Phase/finished``,
    /// `nil` while the total is unknown.
    public var phaseFractionCompleted: Double? {
        if phase == .finished { return 1 }
        guard let total else { return nil }
        return total > 0 ? min(1, max(0, Double(completed) / Double(total))) : 1
    }

    /// Creates a progress report.
    public init(phase: Phase, completed: Int64, total: Int64?) {
        self.phase = phase
        self.completed = completed
        self.total = total
    }
}
