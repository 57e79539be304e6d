extension Schema {
    /// Version 13: no `task_search_insert` trigger; the writer indexes the tasks it inserts in
    /// `task_search` with one statement per transaction (``Tasks/indexInsertedSQL``), and a
    /// filtered copy rebuilds the index it copies into.
    ///
    /// An insert that fires a trigger runs in a statement savepoint (and the trigger's program
    /// runs for every row), and FTS5 (SQLite 3.40) writes its pending terms to disk at every
    /// savepoint: each task then added a segment of one row to `task_search`, and the writer's
    /// transactions spent ~20 µs a task merging them, against ~1.5 µs for all of a transaction's
    /// rows in one statement. The update and delete triggers stay: a row is indexed before its
    /// transaction updates it (``BatchWriter/indexInsertedTasks()``), so their `delete` finds
    /// what was indexed.
    static let version13 = """
        DROP TRIGGER task_search_insert;
        """
}
