/// The messages the full-text index has not reached yet (``SearchIndex``), indexed for one
/// search in a temporary FTS5 table of the reading connection, so they are matched with the
/// index's own tokenizer and query syntax: a search right after ``LogStore/flush()`` finds the
/// newest message, and its results do not depend on how far the writer has indexed.
///
/// The table is external-content over a temporary view of `messages`, so emptying it is one
/// `delete-all` and `highlight()` reads the text from the messages themselves. Its cost is the
/// index's, ~8 µs a message, over at most ``SearchIndex/maximumLag`` messages while a writer
/// with the index on is open.
enum UnindexedMessages {
    static let table = "unindexed_search"

    /// Fills the temporary index with the messages after `indexedThrough`.
    ///
    /// - Returns: whether there are any.
    static func index(after indexedThrough: Int64, connection: Connection) throws(DatabaseError) -> Bool {
        let newest = try connection.integer(Messages.newestIDInMainSQL) ?? 0
        guard newest > indexedThrough else { return false }
        try create(connection)
        try connection.execute("INSERT INTO temp.\(table) (\(table)) VALUES ('delete-all')")
        try connection.cachedStatement("""
            INSERT INTO temp.\(table) (rowid, text, metadata)
            SELECT id, text, metadata FROM main.messages WHERE id > ?
            """).bindAndRun([.integer(indexedThrough)])
        return true
    }

    private static func create(_ connection: Connection) throws(DatabaseError) {
        try connection.execute("""
            CREATE TEMP VIEW IF NOT EXISTS unindexed_messages AS SELECT id, text, metadata FROM main.messages;
            CREATE VIRTUAL TABLE IF NOT EXISTS temp.\(table) USING fts5(
                text, metadata,
                content = 'unindexed_messages', content_rowid = 'id', columnsize = 0,
                tokenize = 'unicode61 remove_diacritics 2'
            );
            """)
    }
}
