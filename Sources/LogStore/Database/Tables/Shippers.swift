/// The `shippers` table (``LogShipper``'s progress and counters, one row per shipping author):
/// its static statements.
enum Shippers {
    /// Creates the row of a shipper seen for the first time: its backfill is every row up to
    /// the largest ids now (arguments: author, destination, started).
    static let insertSQL = """
        INSERT INTO shippers (author_id, destination, started, backfill_messages_next, backfill_messages_through,
                              backfill_tasks_next, backfill_tasks_through)
        VALUES (?, ?, ?, 1, (SELECT coalesce(max(id), 0) FROM messages), 1, (SELECT coalesce(max(id), 0) FROM tasks))
        ON CONFLICT (author_id) DO UPDATE SET destination = excluded.destination
        """

    /// Every shipper's row, with its author's name and cursor, by name.
    static let allSQL = """
        SELECT s.destination, s.started, s.backfill_messages_next, s.backfill_messages_through, s.backfill_tasks_next,
               s.backfill_tasks_through, s.sent_rows, s.sent_requests, s.sent_bytes, s.retries, s.failures,
               s.set_aside_rows, s.gap_rows, s.last_sent, s.last_error, s.last_error_at, s.author_id, a.name, a.cursor
        FROM shippers s JOIN history_authors a ON a.id = s.author_id ORDER BY a.name
        """

    /// What an acknowledged request adds (arguments: rows, bytes, gap rows, when, author).
    static let recordSentSQL = """
        UPDATE shippers SET sent_rows = sent_rows + ?, sent_requests = sent_requests + 1, sent_bytes = sent_bytes + ?,
            gap_rows = gap_rows + ?, last_sent = ?
        WHERE author_id = ?
        """

    /// Rows set aside (arguments: rows, author).
    static let recordSetAsideSQL = "UPDATE shippers SET set_aside_rows = set_aside_rows + ? WHERE author_id = ?"

    /// A failed request (arguments: retries to add, the error, when, author).
    static let recordFailureSQL = """
        UPDATE shippers SET failures = failures + 1, retries = retries + ?, last_error = ?, last_error_at = ?
        WHERE author_id = ?
        """

    /// The backfill's progress: the next ids to send (arguments: message, task, author).
    static let backfillProgressSQL = """
        UPDATE shippers SET backfill_messages_next = max(backfill_messages_next, ?),
            backfill_tasks_next = max(backfill_tasks_next, ?)
        WHERE author_id = ?
        """

    /// What the backfill has left (argument: author).
    static let backfillSQL = """
        SELECT backfill_messages_next, backfill_messages_through, backfill_tasks_next, backfill_tasks_through
        FROM shippers WHERE author_id = ?
        """

    /// How many changes after a cursor there are (argument: cursor).
    static let changesAfterSQL = "SELECT count(*) FROM history WHERE seq > ?"

    /// The oldest change the author has not consumed: when it committed (argument: cursor).
    static let oldestUnconsumedSQL = "SELECT min(at) FROM history WHERE seq > ?"
}
