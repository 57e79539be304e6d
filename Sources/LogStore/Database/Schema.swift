/// The SQL schema, one constant per migration. Documented in README.md ("SQL schema"); users
/// read these tables directly, so names and meanings never change within a major version.
enum Schema {
    /// Version 1: sessions, labels, threads, messages, message blocks and message counts.
    ///
    /// Index choice (measured on 1M rows; README.md "Why these indexes"): the writer appends in
    /// commit order, so `id` order is logging order and "latest N" walks ids backwards instead
    /// of sorting. Each secondary index costs every insert, so there are two:
    /// - `messages_by_label (label_id)`: its entries are (label_id, id), so "latest N of label X"
    ///   is one index walk in id order. (A composite (label_id, level) index served rare levels
    ///   better but cost ~20 % of the insert rate; `message_counts` lets the query planner pick
    ///   the level index instead when a label's matches are rare.)
    /// - `messages_by_level (level) WHERE level >= 4`: partial, so the plentiful trace…notice
    ///   rows cost nothing; warnings and errors, the rows people count and hunt for, are indexed.
    /// `messages.session_id` and `label_id` are not declared as foreign keys: enforcing them
    /// costs two lookups per insert (~10 % of the writer), and the writer, the only insert path,
    /// guarantees both rows exist (labels are never deleted; it restores its session row per
    /// batch); deletes remove messages before their session.
    /// Time and session filters need no index of their own: `message_blocks` records, per run of
    /// consecutive ids written by one session, the range of their `created_at`, which narrows
    /// such queries to an id range (a block-range index, maintained once per batch).
    /// `message_counts` keeps totals per session, label and level, so counts are a few rows.
    static let version1 = """
        CREATE TABLE sessions (
            id          INTEGER PRIMARY KEY,
            uuid        TEXT NOT NULL UNIQUE,
            started_at  REAL NOT NULL,
            app         TEXT NOT NULL,
            host        TEXT NOT NULL
        );

        CREATE TABLE labels (
            id    INTEGER PRIMARY KEY,
            name  TEXT NOT NULL UNIQUE
        );

        CREATE TABLE messages (
            id           INTEGER PRIMARY KEY,
            created_at   REAL NOT NULL,
            session_id   INTEGER NOT NULL,  -- sessions (id)
            level        INTEGER NOT NULL,
            label_id     INTEGER NOT NULL,  -- labels (id)
            text         TEXT NOT NULL,
            metadata     TEXT,
            file         TEXT NOT NULL,
            function     TEXT NOT NULL,
            line         INTEGER NOT NULL,
            thread_id    INTEGER NOT NULL
        );

        -- Thread names, once per thread and session rather than in every row.
        CREATE TABLE threads (
            session_id  INTEGER NOT NULL REFERENCES sessions (id),
            thread_id   INTEGER NOT NULL,
            name        TEXT NOT NULL,
            PRIMARY KEY (session_id, thread_id)
        ) WITHOUT ROWID;

        CREATE INDEX messages_by_label ON messages (label_id);
        CREATE INDEX messages_by_level ON messages (level) WHERE level >= 4;

        -- Every message with first_id <= id <= last_id was written by session_id with
        -- min_created_at <= created_at <= max_created_at (rows may since have been deleted).
        CREATE TABLE message_blocks (
            id              INTEGER PRIMARY KEY,
            session_id      INTEGER NOT NULL REFERENCES sessions (id),
            first_id        INTEGER NOT NULL,
            last_id         INTEGER NOT NULL,
            min_created_at  REAL NOT NULL,
            max_created_at  REAL NOT NULL,
            message_count   INTEGER NOT NULL
        );

        -- Messages per session, label and level, kept by the writer once per batch and by every
        -- delete: counts and info() read these few rows instead of counting millions.
        CREATE TABLE message_counts (
            session_id  INTEGER NOT NULL REFERENCES sessions (id),
            label_id    INTEGER NOT NULL,
            level       INTEGER NOT NULL,
            count       INTEGER NOT NULL,
            PRIMARY KEY (session_id, label_id, level)
        ) WITHOUT ROWID;

        CREATE VIEW message_rows AS
        SELECT messages.id,
               strftime('%Y-%m-%dT%H:%M:%fZ', messages.created_at, 'unixepoch') AS time,
               CASE messages.level
                   WHEN 0 THEN 'trace' WHEN 1 THEN 'debug' WHEN 2 THEN 'info' WHEN 3 THEN 'notice'
                   WHEN 4 THEN 'warning' WHEN 5 THEN 'error' ELSE 'critical' END AS level,
               labels.name AS label,
               messages.text,
               messages.metadata,
               messages.file,
               messages.function,
               messages.line,
               messages.thread_id,
               threads.name AS thread_name,
               sessions.uuid AS session
        FROM messages
        JOIN labels ON labels.id = messages.label_id
        JOIN sessions ON sessions.id = messages.session_id
        LEFT JOIN threads ON threads.session_id = messages.session_id AND threads.thread_id = messages.thread_id;
        """
}
