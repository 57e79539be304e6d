import Foundation
import Synchronization

/// Runs sweeps: keeps a store within ``LogStore/Configuration/maxAge`` and
/// ``LogStore/Configuration/sizeLimit``.
///
/// A sweep is a series of small writer jobs (``BatchWriter`` + Sweep): each deletes a bounded
/// chunk in its own transaction, and the writer commits logged events between any two, so a
/// sweep of millions of rows never holds the write lock for long. Decisions (what is old, how
/// much to trim) are read on reader connections, beside the writer.
///
/// One sweep runs at a time; asking for another meanwhile waits for the running one.
final class Sweeper: Sendable {
    let store: any SweptStore
    let writer: StoreWriter
    let configuration: LogStore.Configuration
    private let running = Mutex<Task<LogStore.SweepReport, any Error>?>(nil)
    let schedule = Mutex<Schedule?>(nil)
    /// Whether the running sweep was triggered by the size limit: its steps then take longer
    /// turns on the writer (``StepSize/target(lastCommit:isUrgent:)``).
    private let isUrgent = Atomic<Bool>(false)

    /// The first step's size of each kind; later steps are sized to take ``StepSize/target``.
    static let messagesPerStep = StepSize(rows: 5_000, range: 500...200_000)
    static let tasksPerStep = StepSize(rows: 200, range: 20...20_000)
    static let vacuumPagesPerStep = StepSize(rows: 1_024, range: 128...65_536)
    /// Emptied partitions of the full-text index dropped per step: one first (a partition
    /// indexed before schema 11 may be large), then as many as take a step's time.
    static let partitionsPerStep = StepSize(rows: 1, range: 1...64)
    /// Deleting a session checks every task for it (no index on `tasks.session_id`): few per step.
    static let sessionsPerStep = StepSize(rows: 1, range: 1...16)
    /// The most rounds of trimming for size in one sweep (see ``run(_:)``).
    static let sizeRounds = 8
    /// Session rows already emptied (``removeSessions``): their blocks and thread names only.
    static let sessionRowsPerStep = StepSize(rows: 64, range: 1...4_096)
    /// Blob files and temporary files younger than this may belong to a write in progress in
    /// another process; the sweep leaves them (the open of a sole writer removes them all).
    static let orphanAge: TimeInterval = 600

    init(store: any SweptStore, writer: StoreWriter, configuration: LogStore.Configuration) {
        self.store = store
        self.writer = writer
        self.configuration = configuration
    }

    /// Runs one sweep (or waits for the one running) and records it in the manifest.
    ///
    /// - Parameter progress: gets the steps of the sweep this call starts; a call that joins
    ///   one already running gets only its ``SweepProgress/Phase/finished`` report (that sweep
    ///   was started without it, and its earlier phases cannot be replayed).
    func sweep(
        _ trigger: LogStore.SweepReport.Trigger, progress: (@Sendable (SweepProgress) -> Void)? = nil
    ) async throws -> LogStore.SweepReport {
        let reporter = progress.map(SweepProgressReporter.init)
        let task = running.withLock { running -> Task<LogStore.SweepReport, any Error> in
            if let running { return running }
            let task = Task(executorPreference: SweepExecutor.shared) {
                try await SweepProgressReporter.$current.withValue(reporter) { try await self.run(trigger) }
            }
            running = task
            return task
        }
        let result = await task.result
        // Cleared before the reports are delivered: a sweep asked for while a slow callback
        // still runs must start a new sweep, not join this finished one.
        running.withLock { if $0 == task { $0 = nil } }
        switch result {
        case .success(let report):
            await reporter?.finish()
            return report
        case .failure(let error):
            await reporter?.drain()
            throw error
        }
    }

    /// Returns when no sweep is running (one in progress has finished or failed).
    func waitUntilIdle() async {
        while let task = running.withLock({ $0 }) {
            _ = try? await task.value
            // The task clears itself from `running` as its callers return; do not spin on it.
            running.withLock { if $0 == task { $0 = nil } }
        }
    }

    /// The size the size sweep judges, read on a reader (``StoreSize/judgedBytes(_:sizeLimit:)``).
    func judgedBytes() async throws -> Int64 {
        let limit = configuration.sizeLimit
        return try await store.read { try StoreSize.judgedBytes($0, sizeLimit: limit) }
    }

    /// Bytes on disk now: the database, its WAL and the blob files.
    func diskUsage() async throws -> Int64 {
        guard let directory = store.filesDirectory else {
            return try await store.read { try StoreSize.usedBytes($0) }
        }
        return try StoreSize.diskUsage(of: directory)
    }

    private func run(_ trigger: LogStore.SweepReport.Trigger) async throws -> LogStore.SweepReport {
        isUrgent.store(trigger == .size, ordering: .relaxed)
        let clock = configuration.timeSource
        let started = ContinuousClock.now
        var report = LogStore.SweepReport(date: clock.now(), trigger: trigger)
        report.sizeBefore = try await diskUsage()
        var removed = BatchWriter.Removed()

        let cutoff = report.date.addingTimeInterval(-configuration.maxAge.seconds)
        removed += try await removeOlder(than: cutoff)
        // A round trims what the store held when it started; logging at full speed into a small
        // store can refill it meanwhile, so a size sweep repeats rounds while the store is still
        // past the threshold, judged once the round's free pages and WAL are given back (a small
        // store counts them). Other sweeps trim once, as planned.
        for _ in 0..<(trigger == .size ? Self.sizeRounds : 1) {
            removed += try await trimBlobsToTheirShare()
            let trimmed = try await trimMessagesToTheSizeLimit()
            removed += trimmed
            guard trigger == .size, trimmed.rows > 0 else { break }
            try await giveFreePagesBack(truncatingTheWAL: true)
            guard try await judgedBytes() > configuration.sizeSweepThreshold else { break }
        }
        // A size sweep runs under heavy logging and must be quick: the directory scan (a lookup
        // per file, in one step) and the cleanup of old sessions wait for the scheduled and
        // manual sweeps (and, for files, the next open).
        if trigger != .size {
            let reporter = SweepProgressReporter.current
            reporter?.begin(.removingOrphanFiles, total: nil)
            report.removedOrphanFiles = try await writer.perform(ordered: false) { [store] writer in
                guard let directory = store.filesDirectory else { return 0 }
                // Files carry real times: their age is read on the system clock, whatever the
                // store's time source says.
                return try BlobStore.removeOrphans(
                    directory: directory, connection: writer.connection, olderThan: Self.orphanAge, now: Date()
                ).files
            }
            reporter?.advance(by: Int64(report.removedOrphanFiles))
            reporter?.begin(.removingEmptySessions, total: nil)
            _ = try await repeatSteps(0, size: Self.sessionsPerStep) { writer, _, limit in
                let deleted = try writer.deleteEmptySessions(startedBefore: cutoff, limit: limit)
                return (deleted < limit, deleted)
            }
        }
        try await giveFreePagesBack(truncatingTheWAL: true)

        // What the guard kept, once every deletion of this sweep is done (the size limit may
        // have taken some of it after all).
        let kept = try await store.read { try Self.keptByTheGuard($0, olderThan: cutoff) }
        report.retentionGuardAuthors = kept.authors
        report.guardedMessages = kept.messages
        report.guardedTasks = kept.tasks
        report.removedMessages = removed.messages
        report.removedTasks = removed.tasks
        report.removedBlobs = removed.blobs
        report.droppedBodies = removed.droppedBodies
        report.sizeAfter = try await diskUsage()
        report.duration = ContinuousClock.now - started
        try store.recordSweep(report)
        return report
    }

    // MARK: Age

    /// Messages created before `cutoff`, found through the blocks that hold older ones (only
    /// their id ranges are visited), then tasks created before it.
    private func removeOlder(than cutoff: Date) async throws -> BatchWriter.Removed {
        let time = cutoff.timeIntervalSince1970
        let ranges = try await store.read { connection in
            try Self.messageRanges(connection, ofBlocksWhere: "min_created_at < ?", [.real(time)])
        }
        if let reporter = SweepProgressReporter.current, !ranges.isEmpty {
            // Only for a caller who watches: a rowid range scan of what is about to go. What the
            // retention guard keeps is not about to go, so it is not in the total either.
            let total = try await store.read { connection in
                let kept = try RetentionGuardBounds.read(on: connection)?.messageCondition ?? (sql: "", arguments: [])
                return try ranges.reduce(Int64(0)) { sum, range in
                    sum + (try connection.integer(
                        "SELECT count(*) FROM messages WHERE id BETWEEN ? AND ? AND created_at < ?\(kept.sql)",
                        [.integer(range.lowerBound), .integer(range.upperBound), .real(time)] + kept.arguments) ?? 0)
                }
            }
            // All of it kept: a phase known to have nothing to do is not reported.
            if total > 0 { reporter.begin(.removingOldMessages, total: total) }
        }
        var removed = BatchWriter.Removed()
        // Only the age sweep waits for history's consumers, and only when an author's row asks:
        // the request is the store's, not this process's configuration (a tool sweeping from
        // cron has none), so each step reads it in its own transaction.
        let rule = BatchWriter.ConsumerRule.retentionGuardWhenAsked
        for range in ranges {
            // The date is checked on every row: a block's id range may hold other processes'
            // newer messages (blocks are extended across their inserts).
            removed += try await deleteMessages(
                from: range.lowerBound, through: range.upperBound, before: cutoff, rule: rule)
        }
        removed += try await removeOlderTasks(than: cutoff, phase: .removingOldTasks, rule: rule)
        return removed
    }

    /// The id ranges of the message blocks matching `condition` (SQL on `message_blocks`),
    /// overlapping or adjacent ones merged so steps stay full.
    static func messageRanges(
        _ connection: Connection, ofBlocksWhere condition: String, _ arguments: [DatabaseValue]
    ) throws -> [ClosedRange<Int64>] {
        let statement = try connection.prepare(
            "SELECT first_id, last_id FROM message_blocks WHERE \(condition) ORDER BY first_id")
        try statement.bind(arguments)
        var ranges: [ClosedRange<Int64>] = []
        while try statement.step() {
            let first = statement.int64(at: 0)
            let last = statement.int64(at: 1)
            guard first <= last else { continue }
            if let previous = ranges.last, first <= previous.upperBound + 1 {
                ranges[ranges.count - 1] = previous.lowerBound...max(previous.upperBound, last)
            } else {
                ranges.append(first...last)
            }
        }
        return ranges
    }

    /// Deletes the messages from `first` through `last` (created before `cutoff`, of one
    /// session) in steps; `rule` says what history's consumers get (``BatchWriter/ConsumerRule``).
    func deleteMessages(
        from first: Int64, through last: Int64, before cutoff: Date?, inSession sessionID: Int64? = nil,
        rule: BatchWriter.ConsumerRule = .none
    ) async throws -> BatchWriter.Removed {
        struct Progress: Sendable {
            var next: Int64?
            var removed = BatchWriter.Removed()
        }
        // Message rows deleted (a removed task counts one row of its own).
        let units: @Sendable (Progress) -> Int64 = { Int64($0.removed.rows - $0.removed.tasks) }
        return try await repeatSteps(Progress(next: first), size: Self.messagesPerStep, counting: units) {
            writer, progress, limit in
            guard let from = progress.next else { return (true, 0) }
            // A session's removal is on purpose: its words leave the index with it.
            let step = try writer.deleteMessages(
                from: from, through: last, before: cutoff, inSession: sessionID, limit: limit, rule: rule,
                purging: sessionID != nil)
            progress.removed += step.removed
            progress.next = step.next
            return (step.next == nil, step.removed.rows)
        }.removed
    }

    // MARK: Size

    /// When blobs take more than their share of the size limit, drops the bodies of the oldest
    /// tasks (their rows stay) until blobs are at ``LogStore/Configuration/trimRatio`` of it.
    private func trimBlobsToTheirShare() async throws -> BatchWriter.Removed {
        let share = Double(configuration.sizeLimit) * configuration.blobSizeShare
        let stored = try await store.read { try StoreSize.blobBytes($0) }
        guard Double(stored) > share else { return BatchWriter.Removed() }
        let target = Int64(share * configuration.trimRatio)
        struct Progress: Sendable {
            var stored: Int64
            var afterID: Int64 = 0
            var removed = BatchWriter.Removed()
        }
        SweepProgressReporter.current?.begin(.droppingBodies, total: stored - target)
        let freed: @Sendable (Progress) -> Int64 = { stored - $0.stored }
        return try await repeatSteps(Progress(stored: stored), size: Self.tasksPerStep, counting: freed) {
            writer, progress, limit in
            guard progress.stored > target else { return (true, 0) }
            let step = try writer.dropBodies(
                afterID: progress.afterID, limit: limit, bytesToFree: progress.stored - target)
            progress.removed += step.removed
            progress.stored -= step.freedBytes
            guard let last = step.lastID else { return (true, step.removed.rows) }
            progress.afterID = last
            return (progress.stored <= target, step.removed.rows)
        }.removed
    }

    /// When the store's data (pages in use and blob files) takes more than 85 % of the size limit
    /// (``LogStore/Configuration/sizeSweepThreshold``), deletes the oldest messages, with the
    /// tasks they describe, so about ``LogStore/Configuration/trimRatio`` of the messages remain; fewer when even that
    /// would leave the store over the limit (logging outran the sweeps): then as many as should
    /// bring it to `trimRatio` of the limit.
    private func trimMessagesToTheSizeLimit() async throws -> BatchWriter.Removed {
        // Pages in use and blob files (and, in a small store, free pages and the WAL: see
        // `judgedBytes`).
        let size = try await judgedBytes()
        guard size > configuration.sizeSweepThreshold else { return BatchWriter.Removed() }
        let limit = Double(configuration.sizeLimit)
        let ratio = configuration.trimRatio
        let kept = Double(size) * ratio <= limit ? ratio : ratio * limit / Double(size)
        let plan = try await store.read { connection -> (first: Int64, cut: Int64, count: Int64)? in
            let count = try connection.integer(Messages.countSQL) ?? 0
            // Far over the limit with few messages, what is kept can round to none; the newest
            // stays (it marks the cut), or the lookup of the cut would find no row and trim nothing.
            let toRemove = min(count - 1, count - Int64((Double(count) * kept).rounded()))
            guard toRemove > 0,
                let first = try connection.integer(Messages.oldestIDSQL),
                let cut = try connection.integer(
                    Messages.idAtOffsetSQL, [.integer(toRemove)])
            else { return nil }
            return (first, cut, toRemove)
        }
        guard let plan else { return BatchWriter.Removed() }
        SweepProgressReporter.current?.begin(.trimmingMessages, total: plan.count)
        // Never held back: what a consumer had not seen is counted as its gap instead.
        var removed = try await deleteMessages(from: plan.first, through: plan.cut - 1, before: nil, rule: .countGaps)
        // Tasks still pending have no technical message: those created before the cut go too.
        let cutDate = try await store.read { connection in
            try connection.real(Messages.createdAtSQL, [.integer(plan.cut)])
        }
        if let cutDate {
            removed += try await removeOlderTasks(
                than: Date(timeIntervalSince1970: cutDate), onlyPending: true, phase: nil, rule: .countGaps)
        }
        return removed
    }

    /// - Parameters:
    ///   - phase: the phase these removals are reported as, counting tasks; `nil` when they
    ///     are the tail of another phase, which counts other units.
    ///   - rule: what history's consumers get (``BatchWriter/ConsumerRule``).
    private func removeOlderTasks(
        than cutoff: Date, onlyPending: Bool = false, phase: SweepProgress.Phase?, rule: BatchWriter.ConsumerRule
    ) async throws -> BatchWriter.Removed {
        let reporter = phase == nil ? nil : SweepProgressReporter.current
        // Usually there are none: a look on a reader spares the wait for a turn on the writer.
        // Someone watching is told how many: a count on the index of task times.
        let older = try await store.read { connection in
            try connection.integer(
                "SELECT \(reporter == nil ? "1" : "count(*)") FROM tasks WHERE created_at < ?"
                    + "\(onlyPending ? " AND state = 0" : "")\(reporter == nil ? " LIMIT 1" : "")",
                [.real(cutoff.timeIntervalSince1970)]) ?? 0
        }
        guard older > 0 else { return BatchWriter.Removed() }
        if let phase, let reporter {
            // The total leaves out what the retention guard keeps (only the age sweep's rule
            // follows it), as the steps will.
            let total = rule != .retentionGuardWhenAsked ? older : try await store.read { connection in
                guard let kept = try RetentionGuardBounds.read(on: connection)?.taskCondition else { return older }
                return try connection.integer(
                    "SELECT count(*) FROM tasks WHERE created_at < ?\(onlyPending ? " AND state = 0" : "")\(kept.sql)",
                    [.real(cutoff.timeIntervalSince1970)] + kept.arguments) ?? 0
            }
            if total > 0 { reporter.begin(phase, total: total) }
        }
        // As the tail of another phase, its tasks add nothing to that phase's count.
        let counted = phase != nil
        let units: @Sendable (BatchWriter.Removed) -> Int64 = { counted ? Int64($0.tasks) : 0 }
        return try await repeatSteps(BatchWriter.Removed(), size: Self.tasksPerStep, counting: units) {
            writer, removed, limit in
            let step = try writer.deleteTasks(createdBefore: cutoff, onlyPending: onlyPending, limit: limit, rule: rule)
            removed += step
            return (step.tasks < limit, step.rows)
        }
    }

    /// Runs `body` on the writer, one step per round between batches of logged events, until it
    /// says it is done; each step gets a row limit sized by how long the last one took
    /// (``StepSize``), and keeps its progress in `state`.
    ///
    /// The sweep's ``SweepProgressReporter/current`` (if any) learns of each step: by default
    /// the rows it returns; `counting` (how many units `state` holds done, read before and
    /// after the step) for phases that count something else.
    func repeatSteps<State: Sendable>(
        _ state: State, size: StepSize, counting units: (@Sendable (State) -> Int64)? = nil,
        _ body: @escaping @Sendable (BatchWriter, inout State, _ limit: Int) throws -> (done: Bool, rows: Int)
    ) async throws -> State {
        let progress = Mutex((state: state, size: size))
        let reporter = SweepProgressReporter.current
        try await writer.performSteps { [self] batchWriter in
            try progress.withLock { progress in
                let start = ContinuousClock.now
                let pagesBefore = batchWriter.connection.pagesWritten
                let unitsBefore = reporter == nil ? 0 : units?(progress.state) ?? 0
                let (done, rows) = try body(batchWriter, &progress.state, progress.size.rows)
                if let reporter {
                    reporter.advance(by: units.map { $0(progress.state) - unitsBefore } ?? Int64(rows))
                }
                let target = StepSize.target(lastCommit: writer.lastCommitDuration, isUrgent: isUrgent.load(ordering: .relaxed))
                // The step has committed: a failed look at the page size must not fail it.
                let pageSize = Int(((try? batchWriter.connection.pageSize()) ?? nil) ?? 4096)
                let written = (batchWriter.connection.pagesWritten - pagesBefore) * pageSize
                progress.size.adjust(
                    rows: rows, took: ContinuousClock.now - start, target: target,
                    wrote: written, byteLimit: batchWriter.transactionByteLimit)
                return done
            }
        }
        return progress.withLock { $0.state }
    }
}
