/// The history's tables: `history` (every change, by sequence number), `history_authors` (its
/// writers and consumers, with their cursors), `history_gaps` (rows a consumer missed) and
/// `history_state` (its cleanups). Their static statements, prepared by their callers.
enum HistoryTables {
    /// Whether some active consumer guards the retention.
    static let anyRetentionGuardSQL = """
        SELECT 1 FROM history_authors WHERE guards_retention = 1 AND kind = 0 AND retired IS NULL LIMIT 1
        """

    /// The active consumers that guard the retention, by name.
    static let retentionGuardNamesSQL = """
        SELECT name FROM history_authors WHERE guards_retention = 1 AND kind = 0 AND retired IS NULL ORDER BY name
        """

    /// Retires an author (from the first argument's time, unless retired already) and its guard.
    static let retireSQL = """
        UPDATE history_authors SET retired = coalesce(retired, ?), guards_retention = 0 WHERE name = ?
        """

    /// The last sequence number the history gave out (kept after its rows are deleted).
    static let lastSequenceSQL = "SELECT seq FROM sqlite_sequence WHERE name = 'history'"

    /// Registers an author, or opens again a retired one, keeping its cursor.
    static let registerSQL = """
        INSERT INTO history_authors (name, kind, cursor, registered, opened, guards_retention) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, opened = coalesce(opened, excluded.opened),
            retired = NULL, guards_retention = excluded.guards_retention
        """

    /// Names a consumer that has not registered yet, its cursor at the current end.
    static let nameConsumerSQL = """
        INSERT INTO history_authors (name, kind, cursor, registered) VALUES (?, 0, ?, ?) ON CONFLICT (name) DO NOTHING
        """

    /// An author's row id, by name.
    static let authorIDSQL = "SELECT id FROM history_authors WHERE name = ?"

    /// Moves an author's cursor forward after a merge, and counts it.
    static let recordMergeSQL = """
        UPDATE history_authors SET cursor = max(cursor, ?), last_merge = ?, merges = merges + 1 WHERE id = ?
        """

    /// Moves an author's cursor forward.
    static let advanceCursorSQL = "UPDATE history_authors SET cursor = max(cursor, ?) WHERE id = ?"

    /// An author's cursor.
    static let cursorSQL = "SELECT cursor FROM history_authors WHERE id = ?"

    /// The sequence number that many rows after the oldest, up to a bound.
    static let sequenceAtOffsetSQL = "SELECT seq FROM history WHERE seq <= ? ORDER BY seq LIMIT 1 OFFSET ?"

    /// Deletes the history through a sequence number.
    static let deleteThroughSQL = "DELETE FROM history WHERE seq <= ?"

    /// Records a cleanup's time and how far it reached.
    static let recordCleanupSQL = "UPDATE history_state SET last_cleanup = ?, cleaned_through = max(cleaned_through, ?) WHERE id = 1"

    /// When the history was last cleaned up.
    static let lastCleanupSQL = "SELECT last_cleanup FROM history_state WHERE id = 1"

    /// The rows an author missed, per entity.
    static let gapsOfAuthorSQL = "SELECT entity, row_count FROM history_gaps WHERE author_id = ? AND row_count > 0"

    /// Takes the rows an author caught up with off its gap.
    static let reduceGapSQL = "UPDATE history_gaps SET row_count = row_count - ? WHERE author_id = ? AND entity = ?"

    /// Deletes an author's closed gaps.
    static let deleteClosedGapsSQL = "DELETE FROM history_gaps WHERE author_id = ? AND row_count <= 0"

    /// Every author's row id and name.
    static let authorNamesSQL = "SELECT id, name FROM history_authors"

    /// One change of one transaction.
    static let insertSQL = """
        INSERT INTO history (seq, txn, author_id, at, entity, operation, ids, row_count, tombstones)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Moves an author's cursor past its own changes, when no one moved it meanwhile.
    static let moveCursorPastSQL = "UPDATE history_authors SET cursor = ? WHERE id = ? AND cursor = ?"

    /// How many rows the history holds, its oldest sequence number and its bytes.
    static let sizeSQL = """
        SELECT count(*), min(seq),
               coalesce(sum(length(ids) + coalesce(length(CAST(tombstones AS BLOB)), 0)), 0)
        FROM history
        """

    /// When the history was last cleaned up and how far.
    static let cleanupStateSQL = "SELECT last_cleanup, cleaned_through FROM history_state WHERE id = 1"

    /// The history's rows through a sequence number.
    static let countThroughSQL = "SELECT count(*) FROM history WHERE seq <= ?"

    /// The changes, and their transactions, after a sequence number by other authors than one.
    static let othersChangesAfterSQL = """
        SELECT count(*), count(DISTINCT txn) FROM history WHERE seq > ? AND author_id <> ?
        """

    /// Every author's open gaps.
    static let openGapsSQL = "SELECT author_id, entity, row_count FROM history_gaps WHERE row_count > 0"

    /// Every author's row id.
    static let authorIDsSQL = "SELECT id FROM history_authors"

    /// The ids an author inserted of an entity after a sequence number.
    static let insertedIDsAfterSQL = """
        SELECT ids FROM history WHERE entity = ? AND operation = 0 AND author_id = ? AND seq > ? ORDER BY seq
        """

    /// Adds rows to an author's gap for an entity.
    static let addGapSQL = """
        INSERT INTO history_gaps (author_id, entity, row_count) VALUES (?, ?, ?)
        ON CONFLICT (author_id, entity) DO UPDATE SET row_count = row_count + excluded.row_count
        """

    /// The active consumers' row ids and cursors.
    static let activeConsumersSQL = "SELECT id, cursor FROM history_authors WHERE kind = 0 AND retired IS NULL"

    /// How many merges an author made.
    static let mergesSQL = "SELECT merges FROM history_authors WHERE id = ?"

    /// Whether any author ever registered.
    static let anyAuthorSQL = "SELECT 1 FROM history_authors LIMIT 1"

    /// The rows consumers missed, all together.
    static let missedRowsSQL = "SELECT coalesce(sum(row_count), 0) FROM history_gaps"

    /// Empties the history: its rows, authors, gaps, sequence and cleanup state.
    static let clearSQL = """
        DELETE FROM history; DELETE FROM history_authors; DELETE FROM history_gaps;
        DELETE FROM sqlite_sequence WHERE name = 'history';
        UPDATE history_state SET last_cleanup = NULL, cleaned_through = 0 WHERE id = 1;
        """
}
