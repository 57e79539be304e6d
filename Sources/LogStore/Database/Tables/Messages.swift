/// `messages`: the logged messages and network tasks' technical messages. Its static
/// statements, prepared by their callers; queries compose their filters on these columns.
enum Messages {
    /// A logged message, with its source location and thread; its id last (NULL: the next,
    /// as SQLite gives it; see ``IDFloors``).
    static let insertSQL = """
        INSERT INTO messages (created_at, session_id, level, label_id, text, metadata, file, function, line,
                              thread_id, id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A network task's technical message has no source location: its columns stay NULL. Its
    /// id last, as for ``insertSQL``.
    static let insertTechnicalSQL = """
        INSERT INTO messages (created_at, session_id, level, label_id, text, metadata, task_id, id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The newest message's id.
    static let newestIDSQL = "SELECT max(id) FROM messages"

    /// Deletes a task's technical message.
    static let deleteTechnicalSQL = "DELETE FROM messages WHERE task_id = ?"

    /// The oldest message's id.
    static let oldestIDSQL = "SELECT min(id) FROM messages"

    /// The logged messages (technical ones left out) with ids in a range created before a time.
    static let countOlderInRangeSQL = "SELECT count(*) FROM messages WHERE id BETWEEN ? AND ? AND created_at < ? AND task_id IS NULL"

    /// Every message, technical ones included.
    static let countSQL = "SELECT count(*) FROM messages"

    /// The id of the message that many messages after the oldest.
    static let idAtOffsetSQL = "SELECT id FROM messages ORDER BY id LIMIT 1 OFFSET ?"

    /// A message's creation time.
    static let createdAtSQL = "SELECT created_at FROM messages WHERE id = ?"

    /// Messages' ids, times, levels and labels; callers add their conditions.
    static let summarySQL = "SELECT id, created_at, level, label_id FROM messages"

    /// Messages' ids, times, levels and labels, for the ids of a JSON array.
    static let summaryByIDsSQL = "SELECT id, created_at, level, label_id FROM messages WHERE id IN (SELECT value FROM json_each(?))"

    /// How many messages have ids after one.
    static let countAfterSQL = "SELECT count(*) FROM messages WHERE id > ?"

    /// The first message id after one.
    static let firstIDAfterSQL = "SELECT min(id) FROM messages WHERE id > ?"

    /// The newest message up to an id created at or before a time.
    static let lastIDAtOrBeforeSQL = "SELECT id FROM messages WHERE id <= ? AND created_at <= ? ORDER BY id DESC LIMIT 1"

    /// The newest message's id and time.
    static let newestSQL = "SELECT id, created_at FROM messages ORDER BY id DESC LIMIT 1"

    /// The newest message's id in the main database (beside a temporary schema).
    static let newestIDInMainSQL = "SELECT max(id) FROM main.messages"

    /// The ids of a task's technical messages.
    static let technicalIDsSQL = "SELECT id FROM messages WHERE task_id = ?"

    /// Deletes the technical messages whose task is gone.
    static let deleteOrphanedTechnicalSQL = "DELETE FROM messages WHERE task_id IS NOT NULL AND task_id NOT IN (SELECT id FROM tasks)"
}

/// `labels`: the labels messages and tasks name by row id.
enum Labels {
    /// Adds a label unless it is there.
    static let insertSQL = "INSERT OR IGNORE INTO labels (name) VALUES (?)"

    /// A label's row id, by name.
    static let idSQL = "SELECT id FROM labels WHERE name = ?"

    /// Every label's row id and name.
    static let allSQL = "SELECT id, name FROM labels"

    /// Every label row, in order.
    static let rowsSQL = "SELECT * FROM labels ORDER BY id"
}

/// `threads`: the thread names each session recorded.
enum Threads {
    /// Records (or renames) a thread of a session.
    static let recordNameSQL = "INSERT OR REPLACE INTO threads (session_id, thread_id, name) VALUES (?, ?, ?)"

    /// Deletes a session's thread names.
    static let deleteOfSessionSQL = "DELETE FROM threads WHERE session_id = ?"

    /// Every thread name, with its session and thread id.
    static let allSQL = "SELECT session_id, thread_id, name FROM threads"
}
