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
    /// `tasks_by_time` serves time-range task queries and the sweep's age cut-off.
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

        CREATE INDEX tasks_by_time ON tasks (created_at);
        """
}
