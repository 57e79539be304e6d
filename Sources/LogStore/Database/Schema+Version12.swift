extension Schema {
    /// Version 12: `shippers`, one row per history author that ships the store elsewhere
    /// (``LogShipper``): what it still has to send of the rows that were there before it, and
    /// its counters, so `logstore history`, ``LogStore/info()`` and other processes see them.
    ///
    /// The history delivers what is committed after the shipper registered; the rows before it
    /// are sent once from `backfill_*_next` up to `backfill_*_through` (the largest ids right
    /// after its registration), moving on as each batch is acknowledged.
    static let version12 = """
        CREATE TABLE shippers (
            author_id                INTEGER PRIMARY KEY REFERENCES history_authors (id) ON DELETE CASCADE,
            destination              TEXT NOT NULL,
            started                  REAL NOT NULL,
            backfill_messages_next   INTEGER NOT NULL,
            backfill_messages_through INTEGER NOT NULL,
            backfill_tasks_next      INTEGER NOT NULL,
            backfill_tasks_through   INTEGER NOT NULL,
            sent_rows                INTEGER NOT NULL DEFAULT 0,
            sent_requests            INTEGER NOT NULL DEFAULT 0,
            sent_bytes               INTEGER NOT NULL DEFAULT 0,
            retries                  INTEGER NOT NULL DEFAULT 0,
            failures                 INTEGER NOT NULL DEFAULT 0,
            set_aside_rows           INTEGER NOT NULL DEFAULT 0,
            gap_rows                 INTEGER NOT NULL DEFAULT 0,
            last_sent                REAL,
            last_error               TEXT,
            last_error_at            REAL
        );
        """
}
