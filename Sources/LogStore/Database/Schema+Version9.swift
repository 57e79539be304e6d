extension Schema {
    /// Version 9: the change history (`History/`), for consumers in other processes.
    ///
    /// - `history_authors`: each author (a process role: the server, its worker, a nightly job)
    ///   with its kind (0 required: it merges, and history it has not consumed is kept; 1 batch:
    ///   it only writes), its cursor (the last `history.seq` it consumed), when it was first
    ///   known, first opened the store and last merged, and whether it retired. An author gets
    ///   its row, and a cursor at the end of history, the first time it opens the store or
    ///   another author's configuration names it as a consumer (`opened` NULL until it opens):
    ///   so the rule of cleanup is in the database, the same for every process and tool, and
    ///   what was kept for a named author is there when it first opens.
    /// - `history`: one row per transaction, entity and operation, in commit order. `seq` is
    ///   `AUTOINCREMENT` so a number is never given twice, even after cleanup deleted the newest
    ///   rows; it is allocated inside the write transaction, so seq order is commit order across
    ///   processes. `txn` is the seq of the transaction's first row. `ids` holds the rows
    ///   concerned as id ranges (``IDRanges``): a batch of thousands of messages is one row of a
    ///   few bytes, which is what keeps history nearly free. `tombstones` holds the preserved
    ///   fields of deleted rows (JSON), where the entity keeps them. `history_inserts` finds one
    ///   author's inserts after a seq: the rows another author has not consumed.
    /// - `history_state`: the last cleanup and how far it went.
    /// - `history_gaps`: rows an author had not consumed when the size limit deleted them, per
    ///   entity, until its next read reports them.
    static let version9 = """
        CREATE TABLE history_authors (
            id          INTEGER PRIMARY KEY,
            name        TEXT NOT NULL UNIQUE,
            kind        INTEGER NOT NULL,
            cursor      INTEGER NOT NULL,
            registered  REAL NOT NULL,
            opened      REAL,
            last_merge  REAL,
            merges      INTEGER NOT NULL DEFAULT 0,
            retired     REAL
        );

        CREATE TABLE history (
            seq         INTEGER PRIMARY KEY AUTOINCREMENT,
            txn         INTEGER NOT NULL,
            author_id   INTEGER NOT NULL,  -- history_authors (id)
            at          REAL NOT NULL,
            entity      INTEGER NOT NULL,
            operation   INTEGER NOT NULL,
            ids         BLOB NOT NULL,
            row_count   INTEGER NOT NULL,
            tombstones  TEXT
        );
        -- The inserts one author made after a seq: what another author has not consumed
        -- (the sweep's retention guard and gap count), without reading the consumer's own rows.
        CREATE INDEX history_inserts ON history (entity, operation, author_id, seq);

        CREATE TABLE history_state (
            id               INTEGER PRIMARY KEY CHECK (id = 1),
            last_cleanup     REAL,
            cleaned_through  INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO history_state (id) VALUES (1);

        CREATE TABLE history_gaps (
            author_id  INTEGER NOT NULL,
            entity     INTEGER NOT NULL,
            row_count  INTEGER NOT NULL,
            PRIMARY KEY (author_id, entity)
        ) WITHOUT ROWID;
        """
}
