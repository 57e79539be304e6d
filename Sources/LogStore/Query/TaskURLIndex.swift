/// Where a task query's URL search reads: the store's `task_search` index, or, in a store too
/// old to have one, a temporary index built for the one query.
///
/// A store of schema 5 or older opened with `.readonly` cannot be migrated (that writes), yet
/// `logstore tasks --grep` opens stores read-only. Such a store's URLs are indexed into a
/// `temp` FTS5 table of the reading connection (SQLite allows temporary tables on a read-only
/// connection) with the same tokenizer, so a search means the same in both; it costs a pass
/// over the tasks per query, only until the store's next writable open migrates it.
enum TaskURLIndex {
    /// The temporary index's name; `temp.` keeps it out of the store's file.
    private static let temporaryTable = "task_search_scan"

    /// Runs `body` with the name of the FTS5 table to `MATCH`, in one read transaction when a
    /// temporary index is needed (the index and the query see the same tasks; a rollback drops
    /// it with the rest).
    static func withSearchTable<T>(
        _ sql: TaskQuerySQL, connection: Connection, _ body: (String) throws -> T
    ) throws -> T {
        guard sql.matchExpression != nil,
            try Migrations.currentVersion(connection) < Migrations.firstVersionWithTaskSearch
        else { return try body("task_search") }
        return try connection.transaction(.deferred) {
            try connection.execute("""
                CREATE VIRTUAL TABLE temp.\(temporaryTable) USING fts5(
                    url, path, columnsize = 0, tokenize = 'unicode61 remove_diacritics 2');
                INSERT INTO temp.\(temporaryTable) (rowid, url, path)
                SELECT id, url, path FROM tasks WHERE url IS NOT NULL;
                """)
            let result = try body(temporaryTable)
            try connection.execute("DROP TABLE temp.\(temporaryTable)")
            return result
        }
    }

    /// Runs `body`, which steps statements already prepared, reporting SQLite's failure as the
    /// caller's invalid FTS5 query when FTS5 refuses the expression itself, or as a damaged index
    /// when it accepts it (``SearchFailure``): the statements prepared, so their SQL is sound,
    /// and FTS5 parses the bound `MATCH` text only while they run. A plain search is always
    /// valid FTS5 (every word quoted).
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` with FTS5's message,
    ///   ``SearchFailure/DamagedIndex``; what `body` throws otherwise.
    static func rejectingInvalidSearch<T>(_ sql: TaskQuerySQL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw SearchFailure.classify(
                error, expression: sql.matchExpression, columns: ["url", "path"], callerSyntax: sql.isFTS5Syntax,
                describing: "the URL search \"\(sql.matchExpression ?? "")\"")
        }
    }
}
