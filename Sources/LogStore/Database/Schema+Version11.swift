extension Schema {
    /// Version 11: the full-text index of messages in partitions by id, and ids that never go
    /// backwards.
    ///
    /// Until 10 one FTS5 table indexed every message, and a trigger wrote a delete marker for
    /// every deleted message: re-tokenizing its text and metadata, about the cost of indexing
    /// it again, after which the markers had to merge. A sweep of 30 % of a million messages
    /// took 7× a plain `DELETE`, and the markers grew the store while it was being emptied.
    ///
    /// Now the index is a series of FTS5 tables (``SearchPartitions``), each over a range of
    /// message ids, written in order: the writer indexes into the newest and starts another once
    /// it holds its share of the store. A deleted message leaves nothing behind at once: its
    /// words stay in its partition, where no search finds them (a search joins every match to
    /// its message, and a deleted one has none), until every message of the partition is gone
    /// and the sweep drops the partition as a whole. So deleting costs what deleting the rows
    /// costs, and the words of swept messages stay no longer than one partition's life. What is
    /// removed on purpose (``LogStore/removeSessions(_:)``) still leaves the index at once.
    ///
    /// That a partition's stale words are never matched to another message needs ids that are
    /// never given out twice: SQLite gives the next row the id after the largest left, so after
    /// the newest rows are deleted it would reuse theirs. `id_floors` records, for messages and
    /// tasks, the largest id ever given out (written by the steps that delete), and the writer
    /// gives the first row after such a deletion the id after it. History's consumers, keyed on
    /// ids, depend on the same.
    ///
    /// `task_transactions` becomes an ordinary table (it was `WITHOUT ROWID`): its rows, about a
    /// kilobyte of metrics JSON each, are past what a `WITHOUT ROWID` leaf keeps in the page
    /// (about a quarter of a 4 KiB page), so each spilled into an overflow page of its own that
    /// stayed mostly empty: 4.1 bytes on disk per byte of JSON. A rowid table keeps up to a page
    /// of a row in its leaf, three or so to a page; the unique index on (task, position) keeps
    /// the lookups and the `INSERT OR REPLACE` of a task's transactions as they were.
    ///
    /// The existing index becomes the first partition as it is, with the ids it covers (an empty
    /// one is dropped); nothing is re-indexed. The triggers that kept it in step go: a message is
    /// never changed once logged (the writer only inserts), so changing its text or metadata
    /// from outside is refused rather than leaving the index wrong.
    static let version11 = """
        CREATE TABLE search_partitions (
            id            INTEGER PRIMARY KEY,
            name          TEXT NOT NULL UNIQUE,
            first_id      INTEGER NOT NULL,
            last_id       INTEGER,
            indexed_rows  INTEGER NOT NULL DEFAULT 0
        );

        INSERT INTO search_partitions (id, name, first_id, last_id, indexed_rows)
        SELECT 1, 'message_search', 1, indexed_through, 0 FROM search_state
        WHERE id = 1 AND indexed_through > 0;

        DROP TRIGGER message_search_delete;
        DROP TRIGGER message_search_update;

        CREATE TRIGGER messages_unchanged BEFORE UPDATE OF text, metadata ON messages
        BEGIN
            SELECT RAISE(ABORT, 'a logged message is never changed: the full-text index relies on it');
        END;

        CREATE TABLE id_floors (
            name     TEXT PRIMARY KEY,
            last_id  INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO id_floors (name, last_id)
        VALUES ('messages', (SELECT max(coalesce((SELECT max(id) FROM messages), 0),
                                        (SELECT indexed_through FROM search_state WHERE id = 1)))),
               ('tasks', (SELECT coalesce(max(id), 0) FROM tasks));

        CREATE TABLE task_transactions_packed (
            task_id   INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
            position  INTEGER NOT NULL,
            json      TEXT NOT NULL,
            UNIQUE (task_id, position)
        );
        INSERT INTO task_transactions_packed (task_id, position, json)
        SELECT task_id, position, json FROM task_transactions ORDER BY task_id, position;
        DROP TABLE task_transactions;
        ALTER TABLE task_transactions_packed RENAME TO task_transactions;
        """

    /// Drops the index the migration found empty (a new store's, or one that indexed nothing):
    /// it has no partition row, and new partitions are numbered after it.
    static func dropEmptyFirstPartition(_ connection: Connection) throws(DatabaseError) {
        guard try connection.integer(SearchPartitions.countSQL) == 0 else { return }
        try connection.execute("DROP TABLE message_search")
    }
}
