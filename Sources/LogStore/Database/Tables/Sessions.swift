/// `sessions`: one row per process that opened the store for writing (or a session recorded
/// later by a maintenance open). Its statements, prepared by their callers.
enum Sessions {
    /// Puts a session's row back under its own id (another process's removal deleted it meanwhile).
    static let restoreSQL = "INSERT OR IGNORE INTO sessions (id, uuid, started_at, app, host) VALUES (?, ?, ?, ?, ?)"

    /// Inserts a session; SQLite gives it its row id.
    static let insertSQL = "INSERT INTO sessions (uuid, started_at, app, host) VALUES (?, ?, ?, ?)"

    /// Up to the third argument's sessions other than the first argument's, started before the
    /// second, that no message or task belongs to any more; never the newest session row.
    static let emptyBeforeSQL = """
        SELECT id FROM sessions WHERE id <> ? AND started_at < ?
            AND id < (SELECT max(id) FROM sessions)
            AND id NOT IN (SELECT session_id FROM message_counts)
            AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.id BETWEEN
                (SELECT min(first_id) FROM message_blocks WHERE session_id = sessions.id) AND
                (SELECT max(last_id) FROM message_blocks WHERE session_id = sessions.id)
                AND messages.session_id = sessions.id)
            AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.session_id = sessions.id)
        LIMIT ?
        """

    /// Deletes a session's row.
    static let deleteSQL = "DELETE FROM sessions WHERE id = ?"

    /// Every session but the argument's.
    static let othersSQL = "SELECT id FROM sessions WHERE id <> ?"

    /// The newest session's host snapshot (JSON).
    static let latestHostSQL = "SELECT host FROM sessions ORDER BY id DESC LIMIT 1"

    /// Every session, oldest first.
    static let allSQL = "SELECT uuid, started_at, app, host FROM sessions ORDER BY id"

    /// How many sessions there are.
    static let countSQL = "SELECT count(*) FROM sessions"

    /// Every session's row id and uuid.
    static let uuidsSQL = "SELECT id, uuid FROM sessions"

    /// The sessions some message or task belongs to.
    static let usedSQL = "SELECT session_id FROM messages UNION SELECT session_id FROM tasks"

    /// Every session's row id.
    static let idsSQL = "SELECT id FROM sessions"
}

/// The current session's row, kept by the writer so it can restore it.
struct SessionRecord: Sendable {
    /// The row id of a session not inserted yet. No row has it (SQLite's row ids start at 1),
    /// so the sweep's "every session but mine" keeps its meaning.
    static let unrecorded: Int64 = 0

    var rowID: Int64
    var uuid: String
    var startedAt: Double
    /// `AppSnapshot` as JSON.
    var app: String
    /// `HostSnapshot` as JSON.
    var host: String
}

extension SessionRecord {
    /// Inserts the row and takes the id SQLite gives it.
    mutating func insert(into connection: Connection) throws {
        try connection.run(
            Sessions.insertSQL,
            [.text(uuid), .real(startedAt), .text(app), .text(host)])
        rowID = connection.lastInsertRowID
    }
}
