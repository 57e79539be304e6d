extension Schema {
    /// Version 3: heads are deduplicated by the writer, not by a unique index.
    ///
    /// A unique index on a random key (the SHA-1 of the head's JSON) costs a write at a random
    /// place per head, and each 10k-event batch then rewrites most of that index's pages: it was
    /// ~20 % of the CPU per network task. Real heads repeat in runs (the same client calling the
    /// same endpoint), so the writer remembers the heads it stored recently and links to them;
    /// a head seen long ago, or by another process, is stored again. `key` stays, unindexed, so a
    /// remembered row is linked only if it still holds that head.
    ///
    /// `tasks` is rebuilt without foreign keys on its head and body columns: with
    /// `foreign_keys=ON`, deleting a head or a blob made SQLite look for tasks still referring to
    /// it, and with no index on those columns that is a scan of every task per deleted row
    /// (measured: 199 blobs took 2.76 s at 36k tasks, 5 ms without the check). Link counts,
    /// which the writer keeps in the same transactions, say what refers to what; indexes on the
    /// four columns instead would cost every insert four more index writes.
    ///
    /// `tasks_by_time` serves time-range task queries and the sweep's age cut-off.
    ///
    /// `blob_totals` holds the blobs' count and sizes, kept by triggers in the same transactions
    /// as the rows: `info()` and the sweep's size checks read one row instead of scanning a
    /// table that holds most of the store's bytes.
    ///
    /// Rebuilding `task_heads` drops a table that `tasks` refers to, so this migration runs with
    /// foreign keys off and checks them before it commits (``Migrations/Step/rebuildsTables``).
    static let version3 = """
        CREATE TABLE task_heads_version3 (
            id          INTEGER PRIMARY KEY,
            key         BLOB NOT NULL,
            json        TEXT NOT NULL,
            link_count  INTEGER NOT NULL
        );
        INSERT INTO task_heads_version3 (id, key, json, link_count) SELECT id, key, json, link_count FROM task_heads;
        DROP TABLE task_heads;
        ALTER TABLE task_heads_version3 RENAME TO task_heads;

        CREATE TABLE tasks_version3 (
            id                  INTEGER PRIMARY KEY,
            uuid                TEXT NOT NULL UNIQUE,
            session_id          INTEGER NOT NULL REFERENCES sessions (id),
            label_id            INTEGER NOT NULL,
            created_at          REAL NOT NULL,
            task_type           INTEGER NOT NULL,
            state               INTEGER NOT NULL,
            method              TEXT,
            url                 TEXT,
            host                TEXT,
            path                TEXT,
            status_code         INTEGER,
            error_code          INTEGER,
            error_domain        TEXT,
            error_description   TEXT,
            content_type        TEXT,
            duration            REAL,
            redirect_count      INTEGER NOT NULL DEFAULT 0,
            request_head_id     INTEGER,  -- task_heads (id), counted in its link_count
            response_head_id    INTEGER,  -- task_heads (id), likewise
            request_body_id     INTEGER,  -- blobs (id), counted in its link_count
            response_body_id    INTEGER,  -- blobs (id), likewise
            request_body_size   INTEGER NOT NULL DEFAULT 0,
            response_body_size  INTEGER NOT NULL DEFAULT 0,
            body_flags          INTEGER NOT NULL DEFAULT 0,
            progress_completed  INTEGER,
            progress_total      INTEGER,
            task_description    TEXT,
            decoding_error      TEXT,
            metadata            TEXT
        );
        INSERT INTO tasks_version3 SELECT * FROM tasks;
        DROP TABLE tasks;
        ALTER TABLE tasks_version3 RENAME TO tasks;
        CREATE INDEX tasks_by_host ON tasks (host);
        CREATE INDEX tasks_by_state ON tasks (state, status_code);

        CREATE INDEX tasks_by_time ON tasks (created_at);

        CREATE TABLE blob_totals (
            id                 INTEGER PRIMARY KEY CHECK (id = 1),
            count              INTEGER NOT NULL,
            size               INTEGER NOT NULL,
            decompressed_size  INTEGER NOT NULL,
            file_size          INTEGER NOT NULL  -- the part of size kept in files in blobs/
        );
        INSERT INTO blob_totals (id, count, size, decompressed_size, file_size)
        SELECT 1, count(*), coalesce(sum(size), 0), coalesce(sum(decompressed_size), 0),
               coalesce(sum(CASE WHEN data IS NULL THEN size ELSE 0 END), 0)
        FROM blobs;
        CREATE TRIGGER blob_added AFTER INSERT ON blobs BEGIN
            UPDATE blob_totals SET count = count + 1, size = size + new.size,
                decompressed_size = decompressed_size + new.decompressed_size,
                file_size = file_size + CASE WHEN new.data IS NULL THEN new.size ELSE 0 END
            WHERE id = 1;
        END;
        CREATE TRIGGER blob_removed AFTER DELETE ON blobs BEGIN
            UPDATE blob_totals SET count = count - 1, size = size - old.size,
                decompressed_size = decompressed_size - old.decompressed_size,
                file_size = file_size - CASE WHEN old.data IS NULL THEN old.size ELSE 0 END
            WHERE id = 1;
        END;
        """
}
