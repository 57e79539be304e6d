/// The writer's side of the full-text index (`message_search`, ``Schema/version5``): messages
/// are indexed after they are committed, in large steps, rather than row by row in the
/// transaction that inserts them.
///
/// Why (the benchmark method article, "Measurements behind the constants"): an FTS5 insert per row in the
/// writer's transaction ran at ~50–60k messages/s against ~160k without; one `INSERT … SELECT`
/// over 16k committed rows indexes ~190k rows/s (with `automerge` 12). So the writer indexes
/// when it has nothing else to do, and while it is busy it lets the index fall at most
/// ``maximumLag`` messages behind before it spends its time on the index again, as many steps
/// as bring it back (``StoreWriter``'s `indexSearch`). Searches read
/// the messages past ``indexedThrough(_:)`` directly (``UnindexedMessages``), so a search never
/// misses a committed message.
enum SearchIndex {
    /// The most messages one step indexes: ~100 ms of the writer's time, so logged events wait
    /// at most that long behind it (and no more than a transaction's WAL bytes: ``step(_:)``).
    ///
    /// Measured against 4,096 and 65,536 (with ``maximumLag`` the same; `logstore-bench --quick
    /// --only search`, 6 alternating runs each, 200k messages, median and range): process CPU
    /// until every message is searchable 2.47 s (2.42–2.53) here, 2.91 s (2.62–3.08) at 4,096,
    /// 2.35 s (2.30–2.57) at 65,536; the longest `storeMessage` → `flush()` while indexing an
    /// existing store 251 ms (139–308), 101 ms (73–188), 733 ms (457–944). Larger steps save
    /// ~5 % of the CPU and stall logging 3× longer; smaller ones cost ~18 % more CPU.
    static let rowsPerStep = 16_384
    /// While events wait, the index may fall this many messages behind before the writer
    /// indexes between its transactions (what a search reads unindexed at worst).
    static let maximumLag: Int64 = 16_384

    /// The id through which every message is indexed; `nil` for a store without the index (an
    /// older schema opened read-only).
    static func indexedThrough(_ connection: Connection) throws(DatabaseError) -> Int64? {
        guard try hasIndex(connection) else { return nil }
        return try connection.integer(Search.indexedThroughSQL) ?? 0
    }

    /// Whether the schema has the index.
    static func hasIndex(_ connection: Connection) throws(DatabaseError) -> Bool {
        try connection.userVersion() ?? 0 >= Int64(Migrations.firstVersionWithSearch)
    }

    /// How many messages (by id) are committed but not yet indexed: the span of ids past the
    /// index, which ids never given out may widen (``unindexedCount(_:)`` counts the messages).
    static func lag(_ connection: Connection) throws(DatabaseError) -> Int64 {
        guard let indexed = try indexedThrough(connection) else { return 0 }
        let newest = try connection.integer(Messages.newestIDSQL) ?? 0
        return max(0, newest - indexed)
    }

    /// How many committed messages are not yet indexed.
    static func unindexedCount(_ connection: Connection) throws(DatabaseError) -> Int64 {
        guard let indexed = try indexedThrough(connection) else { return 0 }
        return try connection.integer(Messages.countAfterSQL, [.integer(indexed)]) ?? 0
    }

    /// Indexes the next messages in one transaction: up to ``rowsPerStep``, and no more than
    /// a transaction of logged events may write to the WAL (``BatchWriter/transactionByteLimit``:
    /// the WAL counts against a small store's size limit), as measured by the previous step.
    ///
    /// - Returns: how many ids it covered, and how many remain unindexed after it.
    @discardableResult
    static func step(_ writer: BatchWriter) throws -> (covered: Int64, remaining: Int64) {
        let limit = writer.searchRowsPerStep
        let pagesBefore = writer.connection.pagesWritten
        let start = ContinuousClock.now
        let step = try indexNext(writer, limit: limit)
        guard step.covered > 0 else { return step }
        let took = ContinuousClock.now - start
        let pageSize = Int(try writer.connection.pageSize() ?? 4096)
        let written = max(1, (writer.connection.pagesWritten - pagesBefore) * pageSize)
        let byBytes = Double(step.covered) * Double(writer.transactionByteLimit) / Double(written)
        // FTS5 merges segments as it goes, so a step's time varies with the index: sized by the
        // last one's, like the sweep's steps.
        let byTime = Double(step.covered) * stepTarget.seconds / max(took.seconds, 1e-4)
        writer.searchRowsPerStep = min(max(Int(min(byBytes, byTime)), 256), rowsPerStep)
        return step
    }

    /// How long one step should hold the writer (logged events wait behind it).
    static let stepTarget: Duration = .milliseconds(100)

    /// A partition is sealed, and the next begun, once it holds about this share of what the
    /// store's size limit holds: a sweep then drops whole partitions, and the words of swept
    /// messages that wait in a partly swept one take about this share of the index.
    static let partitionsPerStore: Int64 = 16
    /// The fewest and most messages a partition is sealed with: each partition is one more
    /// table a search reads, so a small store keeps few; and a store whose limit is far above
    /// what it holds (one kept by age) still drops its oldest partitions as they age out.
    static let partitionRowsRange: ClosedRange<Int64> = 4_096...262_144

    /// How many messages a partition holds before it is sealed: `partitionBytes` of the store
    /// at the bytes each message takes in it now (the database and bodies over the messages).
    static func partitionRows(_ connection: Connection, partitionBytes: Int64) throws -> Int64 {
        let messages = try MessageCounts.total(connection) ?? 0
        let used = try StoreSize.usedBytes(connection)
        let perMessage = messages > 0 ? max(64, used / messages) : 300
        let rows = partitionBytes / perMessage
        return min(max(rows, partitionRowsRange.lowerBound), partitionRowsRange.upperBound)
    }

    private static func indexNext(_ writer: BatchWriter, limit: Int) throws -> (covered: Int64, remaining: Int64) {
        try writer.transaction {
            let connection = writer.connection
            guard let indexed = try indexedThrough(connection) else { return (0, 0) }
            let newest = try connection.integer(Messages.newestIDSQL) ?? 0
            guard newest > indexed else { return (0, 0) }
            // Ids that were never given out (after the newest rows were deleted, ``IDFloors``)
            // are skipped, not walked.
            let from = (try connection.integer(Messages.firstIDAfterSQL, [.integer(indexed)]) ?? newest) - 1
            let (partition, room) = try openPartition(
                connection, indexedThrough: indexed, partitionBytes: writer.searchPartitionBytes)
            let end = min(newest, from + min(Int64(max(1, limit)), room))
            try connection.cachedStatement(SearchPartitions.indexRangeSQL(partition.table))
                .bindAndRun([.integer(from), .integer(end)])
            try connection.cachedStatement(SearchPartitions.addRowsSQL)
                .bindAndRun([.integer(Int64(connection.changes)), .integer(partition.number)])
            try connection.cachedStatement(Search.setIndexedThroughSQL).bindAndRun([.integer(end)])
            return (end - indexed, newest - end)
        }
    }

    /// The partition new messages are indexed into, in the caller's transaction, and how many
    /// more it takes before it is sealed: the open one, unless it holds its share of the store
    /// (then it is sealed at `indexedThrough`) or there is none (then a new one begins after
    /// `indexedThrough`).
    static func openPartition(
        _ connection: Connection, indexedThrough: Int64, partitionBytes: Int64
    ) throws -> (partition: SearchPartitions.Partition, room: Int64) {
        let share = try partitionRows(connection, partitionBytes: partitionBytes)
        let partitions = try SearchPartitions.list(connection)
        if let open = partitions.last, open.isOpen {
            guard open.indexedRows >= share else { return (open, share - open.indexedRows) }
            try connection.cachedStatement(SearchPartitions.sealSQL)
                .bindAndRun([.integer(indexedThrough), .integer(open.number)])
            connection.forgetStatement(SearchPartitions.indexRangeSQL(open.table))
        }
        let number = try connection.integer(SearchPartitions.nextNumberSQL) ?? 2
        let table = SearchPartitions.tableName(number)
        try connection.execute(SearchPartitions.createSQL(table))
        try connection.cachedStatement(SearchPartitions.insertSQL)
            .bindAndRun([.integer(number), .text(table), .integer(indexedThrough + 1)])
        let partition = SearchPartitions.Partition(
            number: number, table: table, firstID: indexedThrough + 1, lastID: indexedThrough, isOpen: true, indexedRows: 0)
        return (partition, share)
    }

    /// Indexes every message the index does not cover yet, in the caller's transaction, and
    /// records it complete (an archive's copy, which never changes again).
    static func indexRemaining(_ connection: Connection) throws {
        guard let indexed = try indexedThrough(connection) else { return }
        let newest = try connection.integer(Messages.newestIDSQL) ?? 0
        guard newest > indexed else { return }
        let (partition, _) = try openPartition(connection, indexedThrough: indexed, partitionBytes: .max)
        try connection.run(SearchPartitions.indexRangeSQL(partition.table), [.integer(indexed), .integer(newest)])
        try connection.run(SearchPartitions.addRowsSQL, [.integer(Int64(connection.changes)), .integer(partition.number)])
        try connection.run(Search.setIndexedThroughSQL, [.integer(newest)])
    }

    /// The partitions no message is left in (every one of theirs was deleted): the sweep drops
    /// them. The open one too, when the messages it covers are all gone (the next step begins
    /// another).
    static func emptyPartitions(_ connection: Connection) throws -> [SearchPartitions.Partition] {
        guard try hasPartitions(connection) else { return [] }
        let check = try connection.cachedStatement(SearchPartitions.anyMessageInRangeSQL)
        var empty: [SearchPartitions.Partition] = []
        // One that has indexed nothing yet (just begun) costs nothing and stays.
        for partition in try SearchPartitions.list(connection) where partition.firstID <= partition.lastID {
            check.reset()
            try check.bind([.integer(partition.firstID), .integer(partition.lastID)])
            guard try check.step() else { continue }
            if check.int64(at: 0) == 0 { empty.append(partition) }
        }
        check.reset()
        return empty
    }

    /// Drops `partition` if no message is left in it, in one transaction.
    ///
    /// - Returns: whether it was dropped.
    static func drop(_ partition: SearchPartitions.Partition, _ writer: BatchWriter) throws -> Bool {
        try writer.transaction {
            let connection = writer.connection
            // Read again in this transaction: another process may have dropped it or, for the
            // open one, indexed more into it.
            guard let current = try SearchPartitions.list(connection).first(where: { $0.number == partition.number }),
                current.firstID <= current.lastID,
                try connection.integer(SearchPartitions.anyMessageInRangeSQL, [.integer(current.firstID), .integer(current.lastID)]) == 0
            else { return false }
            connection.forgetStatement(SearchPartitions.indexRangeSQL(current.table))
            try connection.execute(SearchPartitions.dropSQL(current.table))
            try connection.run(SearchPartitions.deleteSQL, [.integer(current.number)])
            return true
        }
    }

    /// Removes from the index the words of the messages with these ids, in the caller's
    /// transaction: what is removed on purpose leaves the index at once, before its rows go.
    static func purge(ids: [Int64], on connection: Connection) throws {
        guard !ids.isEmpty, try hasPartitions(connection) else { return }
        let partitions = try SearchPartitions.list(connection)
        for id in ids {
            guard let partition = partitions.last(where: { $0.firstID <= id }), id <= partition.lastID else { continue }
            try connection.cachedStatement(SearchPartitions.purgeSQL(partition.table)).bindAndRun([.integer(id)])
        }
    }

    /// Whether the schema has the index in partitions (``Schema/version11``).
    static func hasPartitions(_ connection: Connection) throws(DatabaseError) -> Bool {
        try connection.userVersion() ?? 0 >= Int64(Migrations.firstVersionWithSearchPartitions)
    }
}
