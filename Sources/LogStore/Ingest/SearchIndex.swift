/// The writer's side of the full-text index (`message_search`, ``Schema/version5``): messages
/// are indexed after they are committed, in large steps, rather than row by row in the
/// transaction that inserts them.
///
/// Why (measured on this machine, README "Full-text search"): an FTS5 insert per row in the
/// writer's transaction ran at ~60k messages/s against ~170k without; one `INSERT … SELECT`
/// over 10k committed rows indexes ~126k rows/s, over 100k ~160k rows/s. So the writer indexes
/// when it has nothing else to do, and while it is busy it lets the index fall at most
/// ``maximumLag`` messages behind before it spends its time on the index again. Searches read
/// the messages past ``indexedThrough(_:)`` directly (``UnindexedMessages``), so a search never
/// misses a committed message.
enum SearchIndex {
    /// The most messages one step indexes: ~100 ms of the writer's time, so logged events wait
    /// at most that long behind it.
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
        return try connection.integer("SELECT indexed_through FROM search_state WHERE id = 1") ?? 0
    }

    /// Whether the schema has the index.
    static func hasIndex(_ connection: Connection) throws(DatabaseError) -> Bool {
        try connection.integer("PRAGMA user_version") ?? 0 >= Int64(Migrations.firstVersionWithSearch)
    }

    /// How many messages (by id) are committed but not yet indexed.
    static func lag(_ connection: Connection) throws(DatabaseError) -> Int64 {
        guard let indexed = try indexedThrough(connection) else { return 0 }
        let newest = try connection.integer("SELECT max(id) FROM messages") ?? 0
        return max(0, newest - indexed)
    }

    /// Indexes the next messages, up to ``rowsPerStep``, in one transaction.
    ///
    /// - Returns: how many ids it covered, and how many remain unindexed after it.
    @discardableResult
    static func step(_ writer: BatchWriter, limit: Int = rowsPerStep) throws -> (covered: Int64, remaining: Int64) {
        try writer.transaction {
            let connection = writer.connection
            guard let indexed = try indexedThrough(connection) else { return (0, 0) }
            let newest = try connection.integer("SELECT max(id) FROM messages") ?? 0
            guard newest > indexed else { return (0, 0) }
            let end = min(newest, indexed + Int64(max(1, limit)))
            try connection.cachedStatement("""
                INSERT INTO message_search (rowid, text, metadata)
                SELECT id, text, metadata FROM messages WHERE id > ? AND id <= ?
                """).bindAndRun([.integer(indexed), .integer(end)])
            try connection.cachedStatement("UPDATE search_state SET indexed_through = ? WHERE id = 1")
                .bindAndRun([.integer(end)])
            return (end - indexed, newest - end)
        }
    }
}
