extension Schema {
    /// Version 2: network tasks and their bodies.
    ///
    /// - `blobs`: bodies, deduplicated by the SHA-1 of their (redacted) bytes, with a link count;
    ///   inline up to the inline limit, else a file `blobs/<40 hex>` beside the database.
    /// - `task_heads`: request and response heads (method, URL, headers…) as JSON, shared by the
    ///   tasks that repeat them (by the writer since version 3, see ``version3``).
    /// - `tasks`: one row per network task, its state, the columns queries filter on, and links
    ///   to its heads and bodies; `task_transactions`: its metrics, one row per transaction.
    /// - `messages.task_id`: the task a technical message describes (NULL for logged messages).
    static let version2 = """
        CREATE TABLE blobs (
            id                 INTEGER PRIMARY KEY,
            key                BLOB NOT NULL UNIQUE,
            size               INTEGER NOT NULL,
            decompressed_size  INTEGER NOT NULL,
            compression        INTEGER NOT NULL,
            link_count         INTEGER NOT NULL,
            data               BLOB
        );

        CREATE TABLE task_heads (
            id          INTEGER PRIMARY KEY,
            key         BLOB NOT NULL UNIQUE,
            json        TEXT NOT NULL,
            link_count  INTEGER NOT NULL
        );

        CREATE TABLE tasks (
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
            request_head_id     INTEGER REFERENCES task_heads (id),
            response_head_id    INTEGER REFERENCES task_heads (id),
            request_body_id     INTEGER REFERENCES blobs (id),
            response_body_id    INTEGER REFERENCES blobs (id),
            request_body_size   INTEGER NOT NULL DEFAULT 0,
            response_body_size  INTEGER NOT NULL DEFAULT 0,
            body_flags          INTEGER NOT NULL DEFAULT 0,
            progress_completed  INTEGER,
            progress_total      INTEGER,
            task_description    TEXT,
            decoding_error      TEXT,
            metadata            TEXT
        );
        CREATE INDEX tasks_by_host ON tasks (host);
        CREATE INDEX tasks_by_state ON tasks (state, status_code);

        CREATE TABLE task_transactions (
            task_id   INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
            position  INTEGER NOT NULL,
            json      TEXT NOT NULL,
            PRIMARY KEY (task_id, position)
        ) WITHOUT ROWID;

        ALTER TABLE messages ADD COLUMN task_id INTEGER;
        CREATE INDEX messages_by_task ON messages (task_id) WHERE task_id IS NOT NULL;
        """
}
