import Foundation

/// The sweep's writes, each a small transaction on the writer thread: a sweep is a series of
/// these, and the writer commits logged events between any two of them.
extension BatchWriter {
    /// What one step of the sweep removed.
    struct Removed: Sendable {
        var messages = 0
        var tasks = 0
        var blobs = 0
        var droppedBodies = 0
        /// Rows the step deleted or changed (technical messages included): what sizes the next
        /// step (``Sweeper/StepSize``).
        var rows = 0

        static func += (total: inout Removed, step: Removed) {
            total.messages += step.messages
            total.tasks += step.tasks
            total.blobs += step.blobs
            total.droppedBodies += step.droppedBodies
            total.rows += step.rows
        }
    }

    /// What a deletion does about history's consumers (with history on; without it, nothing).
    enum ConsumerRule: Sendable {
        /// Nothing: an explicit removal (``LogStore/removeAll()``, ``LogStore/removeSessions(_:)``)
        /// deletes what it was asked to.
        case none
        /// The age sweep, of any process: while a required author's row asks for
        /// ``HistoryConfiguration/retentionGuard`` (``HistoryAuthors/retentionGuardIsAsked(on:)``,
        /// read in the step's own transaction), rows a required author has not consumed stay,
        /// from the lowest such id of each entity on; otherwise what is old goes.
        case retentionGuardWhenAsked
        /// The size sweep: never held back, it counts the messages and tasks each required
        /// author had not consumed in `history_gaps`.
        case countGaps
    }

    /// Deletes tasks by row id, with their heads' and bodies' links (their transactions go by
    /// cascade) and, when asked, their technical messages (and, when `purging`, those messages'
    /// words from the full-text index: a removal on purpose). Runs in the caller's transaction.
    @discardableResult
    func deleteTasks(rowIDs: [Int64], withTheirMessages: Bool, purging: Bool = false) throws -> Removed {
        var removed = Removed()
        let links = try connection.cachedStatement(Tasks.linksSQL)
        let delete = try connection.cachedStatement(Tasks.deleteSQL)
        for rowID in rowIDs {
            links.bind(rowID, at: 1)
            guard try links.step() else {
                links.reset()
                continue
            }
            let heads = [0, 1].compactMap { (column: Int32) in links.isNull(at: column) ? nil : links.int64(at: column) }
            let bodies = [2, 3].compactMap { (column: Int32) in links.isNull(at: column) ? nil : links.int64(at: column) }
            links.reset()
            if withTheirMessages, purging {
                try SearchIndex.purge(ids: connection.integers(Messages.technicalIDsSQL, [.integer(rowID)]), on: connection)
            }
            if withTheirMessages {
                if let history {
                    let fields = history.tombstoneFields[.message]
                    let deleted = try connection.cachedStatement(
                        "DELETE FROM messages WHERE task_id = ? RETURNING id\(fields?.returningSQL ?? "")")
                    deleted.bind(rowID, at: 1)
                    defer { deleted.reset() }
                    while try deleted.step() { history.recordDeletion(.message, of: deleted, keeping: fields) }
                } else {
                    try connection.cachedStatement(Messages.deleteTechnicalSQL).bindAndRun([.integer(rowID)])
                }
            }
            if let history, let fields = history.tombstoneFields[.task] {
                // The preserved fields come back from the delete itself: no second read.
                let deleted = try connection.cachedStatement("DELETE FROM tasks WHERE id = ? RETURNING id\(fields.returningSQL)")
                deleted.bind(rowID, at: 1)
                defer { deleted.reset() }
                while try deleted.step() { history.recordDeletion(.task, of: deleted, keeping: fields) }
            } else {
                delete.bind(rowID, at: 1)
                try delete.run()
                history?.record(.task, .delete, id: rowID)
            }
            for head in heads { try releaseHead(head) }
            for body in bodies where try blobs.unlink(rowID: body) == 0 { removed.blobs += 1 }
            removed.tasks += 1
            removed.rows += 1
        }
        return removed
    }

    /// Deletes up to `limit` messages with ids from `firstID` through `lastID`, only those
    /// created before `cutoff` when one is given and only those of the session with row id
    /// `sessionID` when one is given, with the tasks their technical messages describe.
    ///
    /// - Parameters:
    ///   - rule: what it does about history's consumers.
    ///   - purging: whether the messages' words leave the full-text index now (a removal on
    ///     purpose); otherwise they wait in their partition, unmatched, until it is dropped.
    /// - Returns: what it removed, and the id to continue from (nil when the range is done).
    func deleteMessages(
        from firstID: Int64, through lastID: Int64, before cutoff: Date?, inSession sessionID: Int64? = nil,
        limit: Int, rule: ConsumerRule = .none, purging: Bool = false
    ) throws -> (removed: Removed, next: Int64?) {
        try transaction {
            var lastID = lastID
            var condition = "id BETWEEN ? AND ?"
            var guarded: (sql: String, arguments: [DatabaseValue]) = ("", [])
            if rule == .retentionGuardWhenAsked, let bounds = try RetentionGuardBounds.read(on: connection) {
                // Everything from the lowest unconsumed id on stays: the range ends before it.
                if let lowest = bounds.message { lastID = min(lastID, lowest - 1) }
                if lastID < firstID { return (Removed(), nil) }
                guarded = bounds.messageCondition
                condition += guarded.sql
            }
            var arguments: [DatabaseValue] = [.integer(firstID), .integer(lastID)] + guarded.arguments
            if let cutoff {
                condition += " AND created_at < ?"
                arguments.append(.real(cutoff.timeIntervalSince1970))
            }
            if let sessionID {
                condition += " AND session_id = ?"
                arguments.append(.integer(sessionID))
            }
            // The chunk ends at the limit-th matching row: a rowid walk, no sorting.
            let chunkEnd = try connection.integer(
                "SELECT id FROM messages WHERE \(condition) ORDER BY id LIMIT 1 OFFSET ?",
                arguments + [.integer(Int64(max(1, limit) - 1))])
            let end = chunkEnd ?? lastID
            arguments[1] = .integer(end)

            var removed = Removed()
            try recordIDFloor(IDFloors.recordMessagesSQL)
            if purging {
                try SearchIndex.purge(
                    ids: connection.integers("SELECT id FROM messages WHERE \(condition)", arguments), on: connection)
            }
            // One pass over the rows: the delete itself returns what the counts, the tasks the
            // technical messages describe, and history need (a read of the chunk before it
            // for each cost as much again).
            let fields = history?.tombstoneFields[.message]
            let deleted = try connection.prepare("""
                DELETE FROM messages WHERE \(condition)
                RETURNING id\(fields?.returningSQL ?? ""), session_id, label_id, level, task_id
                """)
            try deleted.bind(arguments)
            let grouping = Int32(1 + (fields?.names.count ?? 0))
            var counts: [MessageCounts.Group: Int64] = [:]
            var taskIDs: Set<Int64> = []
            while try deleted.step() {
                history?.recordDeletion(.message, of: deleted, keeping: fields)
                removed.rows += 1
                if deleted.isNull(at: grouping + 3) {
                    let group = MessageCounts.Group(
                        session: deleted.int64(at: grouping), labelID: deleted.int64(at: grouping + 1),
                        level: deleted.int64(at: grouping + 2))
                    counts[group, default: 0] += 1
                } else {
                    taskIDs.insert(deleted.int64(at: grouping + 3))
                }
            }
            for (group, count) in counts {
                removed.messages += Int(count)
                try MessageCounts.subtract(count, session: group.session, labelID: group.labelID, level: group.level, on: connection)
            }
            try MessageCounts.deleteEmpty(on: connection)
            removed += try deleteTasks(rowIDs: taskIDs.sorted(), withTheirMessages: false)
            if let history, rule == .countGaps { try countGaps(history) }
            try MessageBlocks.deleteEmpty(from: firstID, through: end, on: connection)
            return (removed, chunkEnd.flatMap { $0 < lastID ? $0 + 1 : nil })
        }
    }

    /// Deletes up to `limit` tasks created before `cutoff` (only those still pending when
    /// `onlyPending`), oldest first, with their technical messages (pending tasks have none).
    ///
    /// - Parameter rule: what it does about history's consumers.
    func deleteTasks(
        createdBefore cutoff: Date, onlyPending: Bool = false, limit: Int, rule: ConsumerRule = .none
    ) throws -> Removed {
        try transaction {
            var sql = "SELECT id FROM tasks WHERE created_at < ?\(onlyPending ? " AND state = 0" : "")"
            var arguments: [DatabaseValue] = [.real(cutoff.timeIntervalSince1970)]
            if rule == .retentionGuardWhenAsked, let guarded = try RetentionGuardBounds.read(on: connection)?.taskCondition {
                sql += guarded.sql
                arguments += guarded.arguments
            }
            let ids = try connection.integers(sql + " ORDER BY created_at LIMIT ?", arguments + [.integer(Int64(limit))])
            try recordIDFloor(IDFloors.recordTasksSQL)
            let removed = try deleteTasks(rowIDs: ids, withTheirMessages: true)
            if rule == .countGaps, let history { try countGaps(history) }
            return removed
        }
    }

    /// Counts in `history_gaps` the messages and tasks this transaction deleted that a
    /// required author had not consumed (``ConsumerRule/countGaps``).
    private func countGaps(_ history: HistoryRecorder) throws {
        var deleted: [HistoryEntity: IDRanges] = [:]
        for entity in [HistoryEntity.message, .task] { deleted[entity] = history.ids(entity, .delete) }
        try HistoryUnconsumed.countGaps(deleted: deleted, on: connection)
    }

    /// Drops the bodies of up to `limit` tasks with ids above `afterID`, oldest first; the task
    /// rows stay, flagged. Stops early once `bytesToFree` stored bytes of blobs are deleted.
    ///
    /// - Returns: what it removed, the stored bytes it freed, and the last task id it visited
    ///   (nil when no task with a body is left).
    func dropBodies(
        afterID: Int64, limit: Int, bytesToFree: Int64
    ) throws -> (removed: Removed, freedBytes: Int64, lastID: Int64?) {
        try transaction {
            let statement = try connection.prepare(Tasks.withBodiesAfterSQL)
            try statement.bind([.integer(afterID), .integer(Int64(limit))])
            var tasks: [(id: Int64, bodies: [Int64])] = []
            while try statement.step() {
                tasks.append((statement.int64(at: 0), [1, 2].compactMap { column in
                    statement.isNull(at: column) ? nil : statement.int64(at: column)
                }))
            }
            var removed = Removed()
            var freed: Int64 = 0
            var lastID: Int64?
            let clear = try connection.cachedStatement(Tasks.dropBodiesSQL)
            for task in tasks {
                // The task row lets go first: it refers to the bodies (foreign keys).
                try clear.bindAndRun([
                    .integer(TaskBodyFlags.responseBodyDropped), .integer(TaskBodyFlags.requestBodyDropped),
                    .integer(task.id),
                ])
                history?.record(.task, .update, id: task.id)
                for body in task.bodies {
                    let size = try connection.integer(Blobs.sizeSQL, [.integer(body)]) ?? 0
                    if try blobs.unlink(rowID: body) == 0 {
                        removed.blobs += 1
                        freed += size
                    }
                }
                removed.droppedBodies += 1
                removed.rows += 1
                lastID = task.id
                if freed >= bytesToFree { break }
            }
            return (removed, freed, lastID)
        }
    }

    /// Deletes up to `limit` sessions other than this one that started before `cutoff` and that no
    /// message or task belongs to any more, with their (empty) blocks and thread names. The
    /// newest session row stays whatever it holds, so no session id is ever given out twice: a
    /// process still logging into a deleted session puts its row back with its next batch.
    ///
    /// - Returns: how many it deleted.
    func deleteEmptySessions(startedBefore cutoff: Date, limit: Int) throws -> Int {
        try transaction {
            let empty = try connection.integers(Sessions.emptyBeforeSQL, [.integer(sessionRowID), .real(cutoff.timeIntervalSince1970), .integer(Int64(limit))])
            try deleteSessionRows(empty)
            return empty.count
        }
    }

    /// Deletes up to `limit` tasks with row ids up to `lastID` (only the session's with row id
    /// `sessionID` when one is given), oldest first, with their technical messages.
    ///
    /// - Returns: what it removed; fewer than `limit` tasks once none is left.
    func deleteTasks(upTo lastID: Int64, inSession sessionID: Int64?, limit: Int) throws -> Removed {
        try transaction {
            var sql = "SELECT id FROM tasks WHERE id <= ?"
            var arguments: [DatabaseValue] = [.integer(lastID)]
            if let sessionID {
                sql += " AND session_id = ?"
                arguments.append(.integer(sessionID))
            }
            let ids = try connection.integers(sql + " ORDER BY id LIMIT ?", arguments + [.integer(Int64(limit))])
            try recordIDFloor(IDFloors.recordTasksSQL)
            return try deleteTasks(rowIDs: ids, withTheirMessages: true, purging: sessionID != nil)
        }
    }

    /// Deletes the rows of sessions whose messages and tasks are gone, with their blocks and
    /// thread names; this writer's own session row stays (it keeps logging). A process still
    /// logging into a deleted session puts its row back with its next batch.
    func deleteSessions(rowIDs: some Collection<Int64>) throws {
        try transaction { try deleteSessionRows(rowIDs.filter { $0 != sessionRowID }) }
    }

    private func deleteSessionRows(_ rowIDs: some Sequence<Int64>) throws {
        for session in rowIDs {
            try MessageBlocks.deleteAll(ofSession: session, on: connection)
            try connection.run(Threads.deleteOfSessionSQL, [.integer(session)])
            if let history, let fields = history.tombstoneFields[.session] {
                let deleted = try connection.cachedStatement("DELETE FROM sessions WHERE id = ? RETURNING id\(fields.returningSQL)")
                deleted.bind(session, at: 1)
                defer { deleted.reset() }
                while try deleted.step() { history.recordDeletion(.session, of: deleted, keeping: fields) }
            } else {
                try connection.run(Sessions.deleteSQL, [.integer(session)])
                if connection.changes > 0 { history?.record(.session, .delete, id: session) }
            }
        }
    }

    /// Drops `partition` of the full-text index if no message is left in it
    /// (``SearchIndex/drop(_:_:)``), then copies what the WAL holds into the database.
    ///
    /// - Returns: whether it was dropped.
    func dropSearchPartition(_ partition: SearchPartitions.Partition) throws -> Bool {
        let dropped = try SearchIndex.drop(partition, self)
        try checkpoint(.passive)
        return dropped
    }

    /// Records the largest id given out so far in `id_floors` (``Schema/version11``), before a
    /// step deletes: the writer never gives an id out again, even once the newest rows are gone.
    private func recordIDFloor(_ sql: String) throws {
        try connection.cachedStatement(sql).run()
    }

    /// Gives up to `pages` free pages back to the file system (incremental vacuum), then copies
    /// what the WAL holds into the database without waiting for readers.
    ///
    /// - Returns: the free pages left.
    func vacuum(pages: Int) throws -> Int {
        // In a transaction of the writer's, so it counts itself in the store's identity row.
        try transaction { try connection.incrementalVacuum(pages: max(1, pages)) }
        try checkpoint(.passive)
        return Int(try connection.freelistCount() ?? 0)
    }

    /// Checkpoints the WAL and truncates it to zero bytes when no reader holds an old snapshot;
    /// otherwise it stays for a later checkpoint. Never waits for readers: the busy timeout
    /// (5 s) would hold the writer, and logging, that long.
    ///
    /// - Throws: when the checkpoint fails (a reader in the way is not a failure: SQLite reports
    ///   it as a busy row) or the busy timeout cannot be restored, which is reported first: a
    ///   writer left without it would fail at the next lock another process holds.
    func truncateWAL() throws {
        try connection.setBusyTimeout(milliseconds: 0)
        let truncated = Result { () throws(DatabaseError) in try checkpoint(.truncate) }
        try connection.setBusyTimeout()
        try truncated.get()
    }
}
