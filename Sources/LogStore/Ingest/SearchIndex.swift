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

    /// How many messages (by id) are committed but not yet indexed.
    static func lag(_ connection: Connection) throws(DatabaseError) -> Int64 {
        guard let indexed = try indexedThrough(connection) else { return 0 }
        let newest = try connection.integer(Messages.newestIDSQL) ?? 0
        return max(0, newest - indexed)
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

    private static func indexNext(_ writer: BatchWriter, limit: Int) throws -> (covered: Int64, remaining: Int64) {
        try writer.transaction {
            let connection = writer.connection
            guard let indexed = try indexedThrough(connection) else { return (0, 0) }
            let newest = try connection.integer(Messages.newestIDSQL) ?? 0
            guard newest > indexed else { return (0, 0) }
            let end = min(newest, indexed + Int64(max(1, limit)))
            try connection.cachedStatement(Search.indexRangeSQL).bindAndRun([.integer(indexed), .integer(end)])
            try connection.cachedStatement(Search.setIndexedThroughSQL)
                .bindAndRun([.integer(end)])
            return (end - indexed, newest - end)
        }
    }

    /// Merges the index's segments by about `pages` pages, in one transaction: deletions leave
    /// their words in the index as tombstones until the segments holding them are merged, so
    /// after a sweep the index is compacted in these steps (FTS5's incremental `optimize`).
    ///
    /// - Returns: whether there was anything to merge.
    static func merge(_ writer: BatchWriter, pages: Int) throws -> Bool {
        guard try hasIndex(writer.connection) else { return false }
        return try writer.transaction {
            let before = writer.connection.totalChanges
            try writer.connection.run(
                Search.mergeSQL, [.integer(-Int64(max(1, pages)))])
            // FTS5 documents a change count below two as "nothing was merged".
            let merged = writer.connection.totalChanges - before >= 2
            if !merged { try writer.connection.execute(Search.markCompactedSQL) }
            return merged
        }
    }

    /// Records that the index was compacted (its deletions merged away).
    static func markCompacted(_ writer: BatchWriter) throws {
        guard try hasIndex(writer.connection) else { return }
        try writer.connection.execute(Search.markCompactedSQL)
    }

    /// When enough was deleted from the index since it was last compacted to compact it now (a
    /// fifth of what it holds: merging rewrites every segment, ~2 µs per message kept), how many
    /// pages merging it once takes (its segment pages); `nil` when it need not be compacted.
    static func compactionBudget(_ connection: Connection) throws(DatabaseError) -> Int? {
        guard try hasIndex(connection) else { return nil }
        let deleted = try connection.integer(Search.deletedSinceMergeSQL) ?? 0
        guard deleted > 0 else { return nil }
        let kept = try MessageCounts.total(connection) ?? 0
        guard deleted * 5 >= kept else { return nil }
        return Int(try connection.integer(Search.segmentPagesSQL) ?? 0)
    }
}
