/// `message_counts`: how many messages each session has per label and level, kept beside
/// `messages` so counting never scans them. A task's technical message is not counted. The
/// writer adds each batch's counts, the sweep takes away what it deletes, and a filtered copy
/// counts its rows anew: every statement that writes the table is here.
enum MessageCounts {
    /// What one count is kept per: a session, a label and a level.
    struct Group: Hashable {
        var session: Int64
        var labelID: Int64
        var level: Int64
    }

    /// All messages counted, technical ones left out.
    static let totalSQL = "SELECT coalesce(sum(count), 0) FROM message_counts"

    /// The messages counted in the whole store.
    static func total(_ connection: Connection) throws(DatabaseError) -> Int64? {
        try connection.integer(totalSQL)
    }

    /// Adds `count` messages of one session, label and level.
    static func add(
        _ count: Int64, session: Int64, labelID: Int64, level: Int64, on connection: Connection
    ) throws(DatabaseError) {
        try connection.cachedStatement("""
            INSERT INTO message_counts (session_id, label_id, level, count) VALUES (?, ?, ?, ?)
            ON CONFLICT (session_id, label_id, level) DO UPDATE SET count = count + excluded.count
            """).bindAndRun([.integer(session), .integer(labelID), .integer(level), .integer(count)])
    }

    /// Takes `count` deleted messages of one session, label and level away; a count that reaches
    /// zero stays until ``deleteEmpty(on:)``.
    static func subtract(
        _ count: Int64, session: Int64, labelID: Int64, level: Int64, on connection: Connection
    ) throws(DatabaseError) {
        try connection.cachedStatement("""
            UPDATE message_counts SET count = count - ? WHERE session_id = ? AND label_id = ? AND level = ?
            """).bindAndRun([.integer(count), .integer(session), .integer(labelID), .integer(level)])
    }

    /// Deletes the counts nothing is left of.
    static func deleteEmpty(on connection: Connection) throws(DatabaseError) {
        try connection.execute("DELETE FROM message_counts WHERE count <= 0")
    }

    /// Counts the messages of an empty `message_counts` anew, as the writer counts them.
    static func rebuild(on connection: Connection) throws(DatabaseError) {
        try connection.execute("""
            INSERT INTO message_counts (session_id, label_id, level, count)
            SELECT session_id, label_id, level, count(*) FROM messages WHERE task_id IS NULL
            GROUP BY session_id, label_id, level;
            """)
    }

    /// The messages counted per label and level; callers add their conditions and grouping.
    static let perLabelAndLevelSQL = "SELECT label_id, level, sum(count) FROM message_counts"
}

/// `message_blocks`: the id and time range of each run of a few thousand messages of one session
/// (the writer's `messagesPerBlock`), so a query by session or time reads only the
/// ids in range. Every statement that writes the table is here.
enum MessageBlocks {
    /// Extends block `id` of `session` to the messages `firstID` through `lastID`, when it still
    /// ends below `firstID` (ids start again below a block when a sweep emptied the table).
    ///
    /// - Returns: whether the block was extended; when not, the caller starts a new one.
    static func extend(
        _ id: Int64, session: Int64, firstID: Int64, lastID: Int64, minCreatedAt: Double, maxCreatedAt: Double,
        count: Int, on connection: Connection
    ) throws(DatabaseError) -> Bool {
        try connection.cachedStatement("""
            UPDATE message_blocks SET last_id = ?, min_created_at = min(min_created_at, ?),
                max_created_at = max(max_created_at, ?), message_count = message_count + ?
            WHERE id = ? AND session_id = ? AND last_id < ?
            """).bindAndRun([
                .integer(lastID), .real(minCreatedAt), .real(maxCreatedAt), .integer(Int64(count)), .integer(id),
                .integer(session), .integer(firstID),
            ])
        return connection.changes == 1
    }

    /// Starts a block of `session` with the messages `firstID` through `lastID`.
    ///
    /// - Returns: the new block's row id.
    static func insert(
        session: Int64, firstID: Int64, lastID: Int64, minCreatedAt: Double, maxCreatedAt: Double, count: Int,
        on connection: Connection
    ) throws(DatabaseError) -> Int64 {
        try connection.cachedStatement("""
            INSERT INTO message_blocks (session_id, first_id, last_id, min_created_at, max_created_at, message_count)
            VALUES (?, ?, ?, ?, ?, ?)
            """).bindAndRun([
                .integer(session), .integer(firstID), .integer(lastID), .real(minCreatedAt), .real(maxCreatedAt),
                .integer(Int64(count)),
            ])
        return connection.lastInsertRowID
    }

    /// Deletes the blocks in an id range whose messages are all gone, except each session's
    /// latest block: a writer may still be extending it, and deleting the table's last row
    /// would let its id be used again.
    static func deleteEmpty(from firstID: Int64, through lastID: Int64, on connection: Connection) throws(DatabaseError) {
        try connection.run("""
            DELETE FROM message_blocks
            WHERE first_id <= ? AND last_id >= ?
              AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.id BETWEEN message_blocks.first_id AND message_blocks.last_id)
              AND id < (SELECT max(id) FROM message_blocks AS newer WHERE newer.session_id = message_blocks.session_id)
            """, [.integer(lastID), .integer(firstID)])
    }

    /// Deletes every block of a session (whose messages are gone).
    static func deleteAll(ofSession session: Int64, on connection: Connection) throws(DatabaseError) {
        try connection.run("DELETE FROM message_blocks WHERE session_id = ?", [.integer(session)])
    }

    /// Counts the messages of every block anew and deletes the blocks left empty (a copy that
    /// kept only some of the messages).
    static func recount(on connection: Connection) throws(DatabaseError) {
        try connection.execute("""
            UPDATE message_blocks SET message_count = (
                SELECT count(*) FROM messages
                WHERE messages.id BETWEEN message_blocks.first_id AND message_blocks.last_id
                  AND messages.session_id = message_blocks.session_id);
            DELETE FROM message_blocks WHERE message_count = 0;
            """)
    }

    /// The id range of the blocks that match the conditions that follow.
    static let idRangeWhereSQL = "SELECT min(first_id), max(last_id) FROM message_blocks WHERE "

    /// The blocks' id and time ranges; callers add their conditions.
    static let rangesSQL = "SELECT first_id, last_id, min_created_at, max_created_at FROM message_blocks"
}
