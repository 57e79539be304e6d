/// The writer's idle merges of the full-text index's segments (FTS5's `merge` command), in
/// bounded steps.
///
/// Why: FTS5 appends every indexing step as a new segment and merges only when a level holds
/// `automerge` (12) of them, so a partition filled in 16k-row steps is read as a dozen or more
/// segments by every search, and a phrase query walks each one's position lists. Merging a
/// sealed partition down to one segment, once, made phrase searches ~1.7× faster on a 200k
/// store (the benchmark method article). The merges run only when the writer has nothing else
/// to do, and never between a sweep's steps: a merge there made sweeping 2–8× slower, and a merge writes its new segment before
/// freeing the old ones, so it also waits for room on the volume and under the size limit.
enum SearchMerging {
    /// What the merges have done, kept by the writer between steps. Partitions are known by
    /// their first id: ids are never given out twice, while a partition's number is again after
    /// every partition was dropped.
    struct Progress: Sendable {
        /// When the writer last ran a step of long queued work (a sweep's), or was made: merges
        /// wait ``quietBeforeMerging`` after it, so also after the store opens, while the app
        /// starts and reads.
        var lastLongWorkStep = ContinuousClock.now
        /// Sealed partitions merged as far as they go (or given up on after
        /// ``maximumStepsPerPartition``).
        var mergedPartitions: Set<Int64> = []
        /// Steps spent on each sealed partition not yet merged.
        var steps: [Int64: Int] = [:]
        /// The open partition's first id and reach when a merge of it last found nothing to do.
        var openPartitionMerged: (firstID: Int64, through: Int64)?
        /// When the writer last committed logged events.
        var lastLoggedRound: ContinuousClock.Instant?
        /// When the last merge step ended, and how long it took.
        var lastStep: (end: ContinuousClock.Instant, took: Duration)?
        /// When a merge step last failed (another process holding the write lock, a full disk).
        var lastFailure: ContinuousClock.Instant?
    }

    /// Pages of segments one step merges: ~20–60 ms of the writer's time.
    static let pagesPerStep: Int64 = 400
    /// The most steps spent on one sealed partition (a large one of a large store): its
    /// remaining segments are then left as they are.
    static let maximumStepsPerPartition = 400
    /// How long the steps of long queued work (a sweep) must have been quiet before a merge runs.
    static let quietBeforeMerging: Duration = .seconds(1)
    /// How long merges wait after one failed, so a busy database or a full disk does not have
    /// the idle writer retry at every wake-up.
    static let pauseAfterFailure: Duration = .seconds(10)
    /// The free space the volume must have for a merge to run (it writes before it frees).
    static let roomNeeded: Int64 = 64 << 20

    /// While logging goes on, merges take at most this share of the writer's time: a step,
    /// then a pause of its length times `1 / share - 1`.
    static let shareWhileLogging = 0.05

    /// Whether the writer may merge now: no step of long work ran, and the store did not open, within the last
    /// ``quietBeforeMerging``, no step failed within ``pauseAfterFailure``; and if events were
    /// committed within the last ``quietBeforeMerging``, the last step was long enough ago to
    /// hold merges to ``shareWhileLogging`` of the writer's time (merges between every two
    /// batches would take their time from logging).
    static func isQuiet(_ writer: BatchWriter) -> Bool {
        let now = ContinuousClock.now
        let progress = writer.searchMerges
        guard now - progress.lastLongWorkStep >= quietBeforeMerging else { return false }
        if let failed = progress.lastFailure, now - failed < pauseAfterFailure { return false }
        guard let logged = progress.lastLoggedRound, now - logged < quietBeforeMerging,
            let last = progress.lastStep
        else { return true }
        return now - last.end >= last.took * (1 / shareWhileLogging - 1)
    }

    /// What a step would merge.
    private enum Candidate {
        /// A sealed partition, toward one segment.
        case sealed(SearchPartitions.Partition)
        /// The open partition's full levels.
        case open(SearchPartitions.Partition)
    }

    /// Runs one merge step, in one transaction: of the oldest sealed partition not yet merged
    /// (toward one segment), or else of the open one (its full levels only). Decided on a read
    /// first, so a store with nothing to merge writes nothing (a transaction of the writer's
    /// counts a commit, and readers and other processes would see it).
    ///
    /// - Returns: whether it merged anything (the writer may call it again at once).
    static func step(_ writer: BatchWriter) throws -> Bool {
        let connection = writer.connection
        guard try SearchIndex.hasPartitions(connection), hasRoom(connection) else { return false }
        let partitions = try SearchPartitions.list(connection)
        let listed = Set(partitions.map(\.firstID))
        writer.searchMerges.mergedPartitions.formIntersection(listed)
        writer.searchMerges.steps = writer.searchMerges.steps.filter { listed.contains($0.key) }
        guard let candidate = candidate(partitions, writer.searchMerges) else { return false }
        let start = ContinuousClock.now
        defer { writer.searchMerges.lastStep = (.now, ContinuousClock.now - start) }
        do {
            return try writer.transaction {
                // Read again in the transaction: another process may have dropped or sealed it.
                let partitions = try SearchPartitions.list(connection)
                switch candidate {
                case .sealed(let sealed):
                    guard partitions.contains(where: { $0.firstID == sealed.firstID && !$0.isOpen }) else { return false }
                    let changed = try merge(sealed, pages: -pagesPerStep, connection)
                    let steps = writer.searchMerges.steps[sealed.firstID, default: 0] + 1
                    if !changed || steps >= maximumStepsPerPartition {
                        writer.searchMerges.mergedPartitions.insert(sealed.firstID)
                        writer.searchMerges.steps[sealed.firstID] = nil
                    } else {
                        writer.searchMerges.steps[sealed.firstID] = steps
                    }
                    return true
                case .open(let open):
                    guard let current = partitions.last, current.isOpen, current.firstID == open.firstID else { return false }
                    if try !merge(current, pages: pagesPerStep, connection) {
                        writer.searchMerges.openPartitionMerged = (current.firstID, current.lastID)
                        return false
                    }
                    return true
                }
            }
        } catch {
            writer.searchMerges.lastFailure = .now
            throw error
        }
    }

    /// The partition the next step merges, if any.
    private static func candidate(_ partitions: [SearchPartitions.Partition], _ progress: Progress) -> Candidate? {
        if let sealed = partitions.first(where: { !$0.isOpen && !progress.mergedPartitions.contains($0.firstID) }) {
            return .sealed(sealed)
        }
        guard let open = partitions.last, open.isOpen, open.indexedRows > 0 else { return nil }
        if let merged = progress.openPartitionMerged, merged.firstID == open.firstID, merged.through == open.lastID {
            return nil
        }
        return .open(open)
    }

    /// Runs one `merge` command on `partition`; whether it merged anything. The command's own
    /// row counts one change; when FTS5 merges, its writes to the partition's shadow tables
    /// (the new segment's pages, the structure record) count more, and when there is nothing
    /// to merge it writes none.
    private static func merge(_ partition: SearchPartitions.Partition, pages: Int64, _ connection: Connection) throws -> Bool {
        let before = connection.totalChanges
        try connection.run(SearchPartitions.mergeSQL(partition.table), [.integer(pages)])
        return connection.totalChanges - before >= 2
    }

    /// Whether the volume of the database has ``roomNeeded`` free (when it cannot be asked,
    /// the merge is tried: a full disk fails it, and the writer's failure log says so).
    private static func hasRoom(_ connection: Connection) -> Bool {
        guard let available = Files.availableBytes(onVolumeOf: connection.path) else { return true }
        return available >= roomNeeded
    }
}
