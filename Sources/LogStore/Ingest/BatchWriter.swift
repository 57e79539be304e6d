import Foundation

/// The writer thread's side of the database: the write connection, its cached statements, and
/// the caches that turn events into rows. Confined to the writer thread (reached only through
/// ``StoreWriter``).
final class BatchWriter {
    let connection: Connection
    /// Its row id is ``SessionRecord/unrecorded`` until the first commit of a store opened for
    /// maintenance (``LogStore/Configuration/recordsSessionOnOpen``).
    private(set) var session: SessionRecord
    var sessionRowID: Int64 { session.rowID }
    private var labelIDs: [String: Int64] = [:]
    /// Thread names already recorded in `threads` for this session.
    private var threadNames: [Int32: String] = [:]
    /// The open `message_blocks` row of this session and how many messages it covers.
    private var currentBlock: (rowID: Int64, count: Int)?
    /// What this batch inserted so far, for its block.
    private var batchRange = MessageRange()
    /// The ids the transaction's first message and first task must have, when deletions took the
    /// newest rows (``IDFloors``); `nil`: SQLite's own choice. Read as each transaction begins.
    private var nextMessageID: Int64?
    var nextTaskID: Int64?
    /// A block covers at least this many messages before the next one starts: coarse enough to
    /// stay small (~250 rows per million messages), fine enough to narrow a scan to a few pages.
    static let messagesPerBlock = 4096

    /// This batch's messages per (label id, level), at `labelID * levelCount + level`, and the
    /// slots it touched: flushed into `message_counts` at the end of the batch.
    private var batchCounts: [Int] = []
    private var touchedCounts: [Int] = []

    /// Heads this writer stored recently, by key: a repeated head links to its row instead of
    /// adding one (``Schema/version3``). Cleared when full; a stale entry is checked, never trusted.
    var recentHeads: [SHA1.Digest: Int64] = [:]
    static let recentHeadLimit = 8192

    /// The two message inserts, prepared at their first use and kept: a lookup by SQL text in the
    /// connection's cache (hashing ~200 bytes of SQL) on every row cost more than binding it.
    private var insertMessageStatement: Statement?
    private var insertTechnicalMessageStatement: Statement?
    /// The completed task's insert, kept for the same reason: its SQL is the longest of a task's.
    var insertCompletedTaskStatement: Statement?
    /// The tasks this transaction inserted, which `task_search` indexes in one statement before
    /// it commits, or before one of them is updated (``Schema/version13``).
    var tasksToIndex: [Int64] = []

    /// The messages of the batch being committed, laid out in the background (set by
    /// ``StoreWriter`` around its commits; events it does not cover are read from the events).
    var preparedMessages = PreparedMessages() {
        didSet { threadNamesWereReset = false }
    }
    /// The thread names recorded were forgotten (a rolled-back transaction) since this batch
    /// began: its rows then check every thread name, not only the new ones.
    private var threadNamesWereReset = false

    /// Reused for the metadata JSON and file name of messages read from their events, so
    /// encoding allocates nothing once warm.
    private var columnBuffer: [UInt8] = []
    /// Called with the body files a transaction's end could not delete (see ``transaction(_:)``).
    var onFileDeletionFailures: (([LogStoreError]) -> Void)?
    /// Rounds in a row whose commit failed, and since when (see ``commitSettingAside``).
    var failedRounds = 0
    var failingSince: Duration?
    /// The store's timer, which ``failingSince`` is read on.
    var timer: StoreTimer = .system
    /// Dropped events already reported in a stored notice.
    var reportedDropCount: UInt64 = 0
    /// How many messages the next step of the full-text index covers (``SearchIndex/step(_:)``).
    var searchRowsPerStep = 4_096
    /// What the idle merges of the full-text index have done (``SearchMerging``).
    var searchMerges = SearchMerging.Progress()
    /// Collects each transaction's changes for `history` (nil: history is off, and costs nothing).
    /// The blob store records its rows into the same one.
    var history: HistoryRecorder? {
        didSet { blobs.history = history }
    }
    /// For a process opened without a history configuration on a store that recorded no
    /// history yet: asked at the start of every transaction whether some author has registered
    /// since (in any process: a registration is a write, so it is serialized with this one),
    /// and then gives the recorder this process writes under from that transaction on. Nil once
    /// it gave one, and for every other store.
    var lateHistory: ((Connection) throws -> HistoryRecorder?)?
    /// This session's row was inserted on its own (the first batch of a store opened for
    /// maintenance), so the next batch's transaction records its insert.
    private var sessionInsertToRecord = false

    /// Copies the WAL into the database in the background (nil for a store in memory or
    /// opened `.unsafe`, which has no WAL). The writer's own checkpoints go through
    /// ``checkpoint(_:)``, which waits for its pass.
    var walCheckpointer: WALCheckpointer?

    /// Checkpoints on the writer's connection, with no background pass under way: SQLite runs
    /// one checkpoint at a time and would report this one busy.
    func checkpoint(_ mode: Connection.CheckpointMode) throws(DatabaseError) {
        guard let walCheckpointer else { return try connection.checkpoint(mode) }
        try walCheckpointer.exclusively { () throws(DatabaseError) in try connection.checkpoint(mode) }
    }

    /// The bodies of network tasks.
    let blobs: BlobStore
    /// Bodies larger than this are not stored (``LogStore/Configuration/bodySizeLimit``).
    let bodySizeLimit: Int

    init(
        connection: Connection, session: SessionRecord, blobs: BlobStore, bodySizeLimit: Int,
        transactionByteLimit: Int = 32 << 20, searchPartitionBytes: Int64 = 16 << 20
    ) {
        self.connection = connection
        self.session = session
        self.blobs = blobs
        self.bodySizeLimit = bodySizeLimit
        self.transactionByteLimit = transactionByteLimit
        self.searchPartitionBytes = searchPartitionBytes
    }

    /// The share of the store a partition of the full-text index covers before the next begins
    /// (``SearchIndex/partitionRows(_:partitionBytes:)``): a sixteenth of the size limit.
    let searchPartitionBytes: Int64

    /// The most events in one transaction. Larger transactions overflow the page cache, and
    /// SQLite then spills and rereads pages mid-transaction (measured: 1M messages in 50k-event
    /// transactions ran ~25 % slower than in 10k ones); smaller ones rewrite the hot index pages
    /// more often.
    static let eventsPerTransaction = 10_000

    /// The most bytes (estimated, before compression) one transaction writes: with bodies, 10k
    /// events could write hundreds of megabytes, all of it in the WAL until the commit, and the
    /// WAL counts against the store's size limit. A sixteenth of the size limit, 256 KiB–32 MiB: small
    /// transactions cost throughput (each rewrites the index pages it touches).
    let transactionByteLimit: Int

    static func transactionByteLimit(sizeLimit: Int64) -> Int {
        Int(min(max(sizeLimit / 16, 256 << 10), 32 << 20))
    }

    /// Where the transaction that starts at `start` ends: at ``eventsPerTransaction`` events or
    /// ``transactionByteLimit`` bytes, whichever comes first (at least one event).
    /// `batchBytes`, when known, is the estimate of all of `events`: within the limit, no event
    /// is estimated again (on the writer thread that cost each event a copy and a walk of its
    /// metadata).
    func transactionEnd(_ events: [LogStore.Event?], from start: Int, batchBytes: Int? = nil) -> Int {
        let limit = min(start + Self.eventsPerTransaction, events.count)
        if let batchBytes, batchBytes < transactionByteLimit { return limit }
        var bytes = 0
        var end = start
        while end < limit {
            bytes += events[end]?.estimatedSize ?? 0
            end += 1
            if bytes >= transactionByteLimit { break }
        }
        return end
    }

    /// Inserts events in one transaction (skipping the holes the overflow policy left); on
    /// failure nothing is kept and the caches that could point at rolled-back rows are cleared.
    func commit(
        _ events: ArraySlice<LogStore.Event?>, prepared: [TaskPreparation.PreparedTask?]?,
        dropNotice: LogStore.Event.MessageCreated?
    ) throws {
        if session.rowID == SessionRecord.unrecorded {
            // Its own statement, before the batch's transaction: a rolled-back batch must not
            // leave `session.rowID` naming a row that was never kept (another process could
            // take that id).
            try session.insert(into: connection)
            sessionInsertToRecord = history != nil
        }
        try transaction {
            try restoreSessionRow()
            if sessionInsertToRecord {
                history?.record(.session, .insert, id: session.rowID)
            }
            batchRange = MessageRange()
            tasksToIndex.removeAll(keepingCapacity: true)
            (nextMessageID, nextTaskID) = try IDFloors.nextIDs(connection)
            if let dropNotice { try insert(dropNotice) }
            let messages = preparedMessages
            var labelIDs = [Int64](repeating: 0, count: messages.labels.count)
            for index in events.indices {
                if let row = messages.row(at: index) {
                    // A prepared message is inserted without reading its event.
                    if row.isMessage {
                        try insert(row, at: index, of: messages, labelIDs: &labelIDs)
                        continue
                    }
                }
                guard let event = events[index] else { continue }
                switch event {
                case .messageStored(let message): try insert(message)
                case .networkTaskCreated(let task): try insert(task)
                case .networkTaskProgressUpdated(let progress): try update(progress)
                case .networkTaskCompleted(let task): try insert(task, prepared: prepared?[index] ?? nil)
                }
            }
            try recordBlock()
            try recordCounts()
            try indexInsertedTasks()
        }
        sessionInsertToRecord = false
    }

    /// Inserts a message; with `taskRowID`, the technical message of that network task, which
    /// `info().messageCount` and `count(_:)` leave out.
    func insert(_ message: LogStore.Event.MessageCreated, taskRowID: Int64? = nil) throws {
        let labelID = try labelID(for: message.label)
        let statement = taskRowID == nil
            ? try Self.kept(&insertMessageStatement, Messages.insertSQL, on: connection)
            : try Self.kept(&insertTechnicalMessageStatement, Messages.insertTechnicalSQL, on: connection)
        statement.bind(message.createdAt.timeIntervalSince1970, at: 1)
        statement.bind(sessionRowID, at: 2)
        statement.bind(Int64(message.level.rawValue), at: 3)
        statement.bind(labelID, at: 4)
        bindCapped(message.message, at: 5, of: statement)
        if message.metadata?.isEmpty == false {
            columnBuffer.removeAll(keepingCapacity: true)
            PreparedMessages.append(message.metadata, to: &columnBuffer)
            columnBuffer.withUnsafeBytes { statement.bindText($0, at: 6) }
        } else {
            statement.bindNull(at: 6)
        }
        if let taskRowID {
            statement.bind(taskRowID, at: 7)
        } else {
            columnBuffer.removeAll(keepingCapacity: true)
            PreparedMessages.appendLastPathComponent(of: message.file, to: &columnBuffer)
            columnBuffer.withUnsafeBytes { statement.bindText($0, at: 7) }
            statement.bind(message.function, at: 8)
            statement.bind(Int64(truncatingIfNeeded: message.line), at: 9)
            statement.bind(Int64(message.threadID), at: 10)
        }
        bindNextMessageID(to: statement, at: taskRowID == nil ? 11 : 8)
        try statement.run()
        let rowID = connection.lastInsertRowID
        batchRange.add(id: rowID, createdAt: message.createdAt.timeIntervalSince1970)
        history?.record(.message, .insert, id: rowID)
        if taskRowID == nil { count(labelID: labelID, level: message.level) }
        if let name = message.threadName, threadNames[message.threadID] != name {
            try recordThreadName(name, threadID: message.threadID)
        }
    }

    /// Finalizes the statements it keeps, then closes the connection: one left unfinalized
    /// would keep the connection open as a zombie (`sqlite3_close_v2`), with its descriptors
    /// and its locks, after the store's close returned.
    func close() {
        walCheckpointer?.detach(from: connection)
        walCheckpointer = nil
        insertMessageStatement = nil
        insertTechnicalMessageStatement = nil
        insertCompletedTaskStatement = nil
        connection.close()
    }

    /// The statement kept in `slot`, prepared on first use.
    static func kept(_ slot: inout Statement?, _ sql: String, on connection: Connection) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try connection.persistentStatement(sql)
        slot = statement
        return statement
    }

    /// Binds the id the next message must have (``nextMessageID``, then SQLite's choice: NULL).
    private func bindNextMessageID(to statement: Statement, at index: Int32) {
        if let id = nextMessageID {
            statement.bind(id, at: index)
            nextMessageID = nil
        } else {
            statement.bindNull(at: index)
        }
    }

    /// Binds a message's text, cut as ``PreparedMessages/capped(_:)`` cuts it.
    private func bindCapped(_ text: String, at index: Int32, of statement: Statement) {
        PreparedMessages.capped(text).withUTF8Bytes { statement.bindText($0, at: index) }
    }

    /// Inserts the prepared message `row`, event `index` of the batch; `labelIDs` are the row ids
    /// of `messages.labels` found so far in this transaction (0 when not yet).
    private func insert(
        _ row: PreparedMessages.Row, at index: Int, of messages: PreparedMessages, labelIDs: inout [Int64]
    ) throws {
        let labelSlot = Int(row.label)
        var labelID = labelIDs[labelSlot]
        if labelID == 0 {
            labelID = try self.labelID(for: messages.labels[labelSlot])
            labelIDs[labelSlot] = labelID
        }
        let statement = try Self.kept(&insertMessageStatement, Messages.insertSQL, on: connection)
        statement.bind(row.createdAt, at: 1)
        statement.bind(sessionRowID, at: 2)
        statement.bind(Int64(row.level.rawValue), at: 3)
        statement.bind(labelID, at: 4)
        messages.withColumns(ofRowAt: index) { text, metadata, file, function in
            statement.bindText(text, at: 5)
            if metadata.isEmpty {
                statement.bindNull(at: 6)
            } else {
                statement.bindText(metadata, at: 6)
            }
            statement.bindText(file, at: 7)
            statement.bindText(function, at: 8)
        }
        statement.bind(row.line, at: 9)
        statement.bind(Int64(row.threadID), at: 10)
        bindNextMessageID(to: statement, at: 11)
        try statement.run()
        let rowID = connection.lastInsertRowID
        batchRange.add(id: rowID, createdAt: row.createdAt)
        history?.record(.message, .insert, id: rowID)
        count(labelID: labelID, level: row.level)
        if row.threadName >= 0, row.isNewThreadName || threadNamesWereReset {
            let name = messages.threadNames[Int(row.threadName)]
            if threadNames[row.threadID] != name { try recordThreadName(name, threadID: row.threadID) }
        }
    }

    private static let levelCount = LogStore.Level.allCases.count

    private func count(labelID: Int64, level: LogStore.Level) {
        let slot = Int(labelID) * Self.levelCount + Int(level.rawValue)
        if slot >= batchCounts.count {
            batchCounts.append(contentsOf: repeatElement(0, count: slot + 1 - batchCounts.count))
        }
        if batchCounts[slot] == 0 { touchedCounts.append(slot) }
        batchCounts[slot] += 1
    }

    /// Adds this batch's per-label, per-level counts to `message_counts`.
    private func recordCounts() throws {
        for slot in touchedCounts {
            try MessageCounts.add(
                Int64(batchCounts[slot]), session: sessionRowID, labelID: Int64(slot / Self.levelCount),
                level: Int64(slot % Self.levelCount), on: connection)
            batchCounts[slot] = 0
        }
        touchedCounts.removeAll(keepingCapacity: true)
    }

    /// Puts this session's row back if another process's `removeAll` or `removeSessions`
    /// deleted it while this one is still logging (its messages must have a session to belong
    /// to). One statement per batch.
    private func restoreSessionRow() throws {
        try connection.cachedStatement(
            Sessions.restoreSQL
        ).bindAndRun([
            .integer(session.rowID), .text(session.uuid), .real(session.startedAt), .text(session.app),
            .text(session.host),
        ])
        // Put back after another process's removal deleted it: consumers saw the delete.
        if connection.changes > 0 { history?.record(.session, .insert, id: session.rowID) }
    }

    /// Extends the open block with this batch's messages, or starts a new block.
    private func recordBlock() throws {
        guard batchRange.count > 0 else { return }
        if let block = currentBlock, block.count < Self.messagesPerBlock {
            // Ids start again below a block when a sweep emptied the table: new block then.
            let extended = try MessageBlocks.extend(
                block.rowID, session: sessionRowID, firstID: batchRange.firstID, lastID: batchRange.lastID,
                minCreatedAt: batchRange.minCreatedAt, maxCreatedAt: batchRange.maxCreatedAt, count: batchRange.count,
                on: connection)
            if extended {
                currentBlock = (block.rowID, block.count + batchRange.count)
                return
            }
        }
        let rowID = try MessageBlocks.insert(
            session: sessionRowID, firstID: batchRange.firstID, lastID: batchRange.lastID,
            minCreatedAt: batchRange.minCreatedAt, maxCreatedAt: batchRange.maxCreatedAt, count: batchRange.count,
            on: connection)
        currentBlock = (rowID, batchRange.count)
    }

    private func recordThreadName(_ name: String, threadID: Int32) throws {
        let statement = try connection.cachedStatement(Threads.recordNameSQL)
        statement.bind(sessionRowID, at: 1)
        statement.bind(Int64(threadID), at: 2)
        statement.bind(name, at: 3)
        try statement.run()
        threadNames[threadID] = name
    }

    func labelID(for label: String) throws -> Int64 {
        if let id = labelIDs[label] { return id }
        let insert = try connection.cachedStatement(Labels.insertSQL)
        insert.bind(label, at: 1)
        try insert.run()
        let select = try connection.cachedStatement(Labels.idSQL)
        select.bind(label, at: 1)
        defer { select.reset() }
        guard try select.step() else {
            throw DatabaseError(message: "label row missing after insert", sql: select.sql)
        }
        let id = select.int64(at: 0)
        labelIDs[label] = id
        return id
    }

    /// Runs `body` in a transaction on the write connection; the blob store then deletes the
    /// files of unlinked bodies (commit) or the files of bodies the rolled-back transaction
    /// added (rollback), and the caches that could point at rolled-back rows are cleared.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        // The late start of history this transaction made, undone with it: its registration
        // rolls back too.
        var lateStart: ((Connection) throws -> HistoryRecorder?)?
        do {
            let value = try connection.transaction(.immediate) {
                // Every WAL this writes then holds the store's identity (Schema.version8).
                try connection.cachedStatement(StoreIdentity.countCommitSQL).run()
                if let lateHistory, history == nil, let recorder = try lateHistory(connection) {
                    history = recorder
                    lateStart = lateHistory
                    self.lateHistory = nil
                }
                let value = try body()
                try history?.flush(connection)
                return value
            }
            // A body file that could not be deleted stays an orphan for the sweep to remove;
            // the commit stands either way, and the failure is counted and reported.
            reportFileDeletionFailures(blobs.didCommit())
            return value
        } catch {
            history?.discard()
            if let lateStart {
                history = nil
                lateHistory = lateStart
            }
            reportFileDeletionFailures(blobs.didRollBack())
            resetCaches()
            throw error
        }
    }

    private func reportFileDeletionFailures(_ failures: [LogStoreError]) {
        if !failures.isEmpty { onFileDeletionFailures?(failures) }
    }

    /// Forgets cached row ids (after rows were deleted outside the insert path).
    func resetCaches() {
        labelIDs.removeAll()
        threadNames.removeAll()
        threadNamesWereReset = true
        recentHeads.removeAll()
        currentBlock = nil
        for slot in touchedCounts { batchCounts[slot] = 0 }
        touchedCounts.removeAll(keepingCapacity: true)
    }

    func rememberHead(_ key: SHA1.Digest, rowID: Int64) {
        if recentHeads.count >= Self.recentHeadLimit { recentHeads.removeAll(keepingCapacity: true) }
        recentHeads[key] = rowID
    }
}
