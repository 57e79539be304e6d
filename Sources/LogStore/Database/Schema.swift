/// The SQL schema, one constant per migration. Documented in README.md ("SQL schema"); users
/// read these tables directly, so names and meanings never change within a major version.
enum Schema {
    /// Version 1: sessions, labels, threads and messages.
    ///
    /// Index choice (measured on 1M rows, see README.md "Why these indexes"): the writer appends in
    /// time order, so `id` order is time order and "latest N" queries walk the primary key
    /// backwards instead of sorting. Secondary indexes are what an insert pays for (~0.6–1 µs a
    /// row each), so only two exist:
    /// - `messages_by_label (label_id)`: its entries are (label_id, id), so "latest N of label X"
    ///   walks one label in id order.
    /// - `messages_by_level (level) WHERE level >= 4`: partial, so the common trace…notice rows
    ///   cost nothing; warnings and errors, the rows people count and hunt for, are indexed.
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
            session_id   INTEGER NOT NULL REFERENCES sessions (id),
            level        INTEGER NOT NULL,
            label_id     INTEGER NOT NULL REFERENCES labels (id),
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
