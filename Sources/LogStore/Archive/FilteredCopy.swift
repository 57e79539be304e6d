import Foundation

/// A new database holding only the rows an export's options select, copied from a store's
/// database inside one read transaction (one consistent snapshot), with everything derived from
/// those rows (counts, blocks, link counts, the search index) rebuilt for them. Only the bodies
/// and heads the copied tasks refer to are copied.
///
/// The source is only read: every statement that writes runs on the copy's own connection, and
/// rows cross over value by value (``Connection/copyRows(from:select:_:into:ignoringDuplicates:)``).
enum FilteredCopy {
    /// Fills the empty database at `url` with the rows `options` select from `source`.
    static func copy(from source: Connection, options: ExportOptions, to url: URL, progress: ExportProgressReporter) throws {
        let target = try Connection(path: url.path, mode: .readWrite(create: false))
        defer { target.close() }
        try progress.interruptible(target) { try copy(from: source, options: options, into: target) }
    }

    private static func copy(from source: Connection, options: ExportOptions, into target: Connection) throws {
        // A scratch file: a crash leaves it to be deleted, so no journal and no syncs.
        try target.setScratchJournal(.off)
        try Migrations.migrate(target)
        // Rows arrive table by table, each before or after what it refers to; the copy is
        // consistent once complete because the source was.
        try target.setForeignKeys(false)
        try source.transaction(.deferred) {
            try target.transaction {
                try copyRows(from: source, to: target, options: options)
                try rebuildDerivedRows(target)
            }
        }
    }

    private static func copyRows(from source: Connection, to target: Connection, options: ExportOptions) throws {
        if let query = options.taskQuery(pageSize: 1) {
            try TaskRows.withMatchingRowsSQL(query, connection: source) { sql, arguments in
                try target.copyRows(from: source, select: sql, arguments, into: "tasks")
            }
        }
        if let query = options.messageQuery(pageSize: 1),
            let (sql, arguments) = try MessageRows.matchingRowsSQL(query, connection: source)
        {
            try target.copyRows(
                from: source, select: "SELECT * FROM messages WHERE id IN (SELECT id FROM (\(sql))) ORDER BY id",
                arguments, into: "messages")
        }
        // A task's own technical message travels with it.
        let taskIDs = try idList(target, Tasks.idsSQL)
        try target.copyRows(
            from: source,
            select: "SELECT * FROM messages WHERE task_id IS NOT NULL AND task_id IN (SELECT value FROM json_each(?)) ORDER BY id",
            [.text(taskIDs)], into: "messages", ignoringDuplicates: true)

        let namedSessions = "[" + options.sessions.map { "\"\($0.uuidString)\"" }.joined(separator: ",") + "]"
        let usedSessions = try idList(target, Sessions.usedSQL)
        try target.copyRows(
            from: source,
            select: """
                SELECT * FROM sessions WHERE id IN (SELECT value FROM json_each(?))
                OR uuid IN (SELECT value FROM json_each(?)) ORDER BY id
                """,
            [.text(usedSessions), .text(namedSessions)], into: "sessions")
        let sessions = try idList(target, Sessions.idsSQL)
        try target.copyRows(from: source, select: Labels.rowsSQL, into: "labels")
        try target.copyRows(
            from: source, select: "SELECT * FROM threads WHERE session_id IN (SELECT value FROM json_each(?))",
            [.text(sessions)], into: "threads")
        try target.copyRows(
            from: source,
            select: "SELECT * FROM message_blocks WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY id",
            [.text(sessions)], into: "message_blocks")

        try target.copyRows(
            from: source,
            select: "SELECT * FROM task_transactions WHERE task_id IN (SELECT value FROM json_each(?))",
            [.text(taskIDs)], into: "task_transactions")
        try copyReferenced("task_heads", by: "request_head_id", "response_head_id", from: source, to: target)
        try copyReferenced("blobs", by: "request_body_id", "response_body_id", from: source, to: target)
    }

    /// Copies the rows of `table` that the copied tasks' two columns refer to.
    private static func copyReferenced(
        _ table: String, by first: String, _ second: String, from source: Connection, to target: Connection
    ) throws {
        let ids = try idList(target, """
            SELECT \(first) FROM tasks WHERE \(first) IS NOT NULL
            UNION SELECT \(second) FROM tasks WHERE \(second) IS NOT NULL
            """)
        try target.copyRows(
            from: source, select: "SELECT * FROM \(table) WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
            [.text(ids)], into: table)
    }

    /// Counts, blocks and links as the copied rows make them.
    private static func rebuildDerivedRows(_ target: Connection) throws {
        // A technical message whose task stayed behind (a message query that includes them, and
        // a narrower task query) would name a task the archive does not hold.
        try target.execute(Messages.deleteOrphanedTechnicalSQL)
        // As the writer keeps them: a task's technical message is not counted.
        try MessageCounts.rebuild(on: target)
        try MessageBlocks.recount(on: target)
        // No insert trigger indexed the tasks copied (schema 13).
        try target.execute(Tasks.rebuildSearchSQL)
        try target.execute("""
            \(relinking("task_heads", from: "request_head_id", "response_head_id"))
            \(relinking("blobs", from: "request_body_id", "response_body_id"))
            """)
    }

    /// SQL setting `table`'s link counts to how many references the tasks' two columns make.
    private static func relinking(_ table: String, from first: String, _ second: String) -> String {
        """
        UPDATE \(table) SET link_count = links.count
        FROM (SELECT target, count(*) AS count FROM (
                SELECT \(first) AS target FROM tasks UNION ALL SELECT \(second) FROM tasks)
              WHERE target IS NOT NULL GROUP BY target) AS links
        WHERE links.target = \(table).id;
        """
    }

    /// The values `sql` selects, as a JSON array for `json_each`.
    private static func idList(_ connection: Connection, _ sql: String) throws -> String {
        "[" + (try connection.integers(sql)).map(String.init).joined(separator: ",") + "]"
    }
}
