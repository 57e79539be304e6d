extension Schema {
    /// Version 5: full-text search over messages.
    ///
    /// `message_search` is an FTS5 index of each message's `text` and `metadata`, with the
    /// `messages` table as its external content (the text is stored once). `columnsize=0`
    /// leaves out the per-row size table: one B-tree write less per message (~12 % of the
    /// indexing cost measured here); bm25 ranking then measures the few matching rows instead.
    /// The `unicode61` tokenizer with `remove_diacritics 2` finds words without case or accents
    /// (a trigram index would also serve substrings but indexed 4× slower and is 3× larger).
    ///
    /// The index is written after the rows, in large steps, by the writer (``SearchIndex``):
    /// every message with `id <= search_state.indexed_through` is in it, later ones are not yet,
    /// and searches read those few directly. Deletions keep it in step through the triggers
    /// below, whatever deletes the rows (the sweep, `removeAll`, a `DELETE` in `sqlite3`).
    /// An existing store starts with an empty index that the writer fills in bounded steps.
    /// FTS5 merges segments once 12 wait on a level (its default is 4): see the SQL.
    static let version5 = """
        CREATE VIRTUAL TABLE message_search USING fts5(
            text, metadata,
            content = 'messages', content_rowid = 'id', columnsize = 0,
            tokenize = 'unicode61 remove_diacritics 2'
        );

        -- Every message with id <= indexed_through is in message_search. Deleted words stay in
        -- the index's segments until they merge: deleted_since_merge counts the messages
        -- deleted from it since the sweep last compacted it.
        CREATE TABLE search_state (
            id                   INTEGER PRIMARY KEY CHECK (id = 1),
            indexed_through      INTEGER NOT NULL,
            deleted_since_merge  INTEGER NOT NULL
        );
        INSERT INTO search_state (id, indexed_through, deleted_since_merge) VALUES (1, 0, 0);

        -- Segments merge once 12 wait on a level, not 4: the index is written in large steps
        -- and searched mostly for the latest matches, so fewer, larger merges pay (measured:
        -- ~125k rows/s indexed at 4, ~190k at 12; a latest-100 lookup 0.07 → 0.1 ms).
        INSERT INTO message_search (message_search, rank) VALUES ('automerge', 12);

        -- A deleted message leaves the index if it was in it. And the position never stays
        -- above the newest message left: SQLite gives the next message the id after the
        -- largest, which must not count as indexed (after removeAll, for example). One trigger,
        -- so the two happen in this order.
        CREATE TRIGGER message_search_delete AFTER DELETE ON messages
        BEGIN
            INSERT INTO message_search (message_search, rowid, text, metadata)
            SELECT 'delete', old.id, old.text, old.metadata
            WHERE old.id <= (SELECT indexed_through FROM search_state WHERE id = 1);
            UPDATE search_state
            SET deleted_since_merge = deleted_since_merge + (old.id <= indexed_through),
                indexed_through = min(indexed_through, (SELECT coalesce(max(id), 0) FROM messages))
            WHERE id = 1;
        END;

        CREATE TRIGGER message_search_update AFTER UPDATE OF text, metadata ON messages
        WHEN old.id <= (SELECT indexed_through FROM search_state WHERE id = 1)
        BEGIN
            INSERT INTO message_search (message_search, rowid, text, metadata)
            VALUES ('delete', old.id, old.text, old.metadata);
            INSERT INTO message_search (rowid, text, metadata) VALUES (new.id, new.text, new.metadata);
        END;
        """
}
