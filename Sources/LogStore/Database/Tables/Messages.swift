/// `messages`: the logged messages and network tasks' technical messages. Its static
/// statements, prepared by their callers; queries compose their filters on these columns.
enum Messages {
    /// A logged message, with its source location and thread.
    static let insertSQL = """
        INSERT INTO messages (created_at, session_id, level, label_id, text, metadata, file, function, line,
                              thread_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A network task's technical message has no source location: its columns stay NULL.
    static let insertTechnicalSQL = """
        INSERT INTO messages (created_at, session_id, level, label_id, text, metadata, task_id)
        VALUES (?, ?, ?, ?, ?, ?, ?)
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
}

/// `labels`: the labels messages and tasks name by row id.
enum Labels {
    /// Adds a label unless it is there.
    static let insertSQL = "INSERT OR IGNORE INTO labels (name) VALUES (?)"

    /// A label's row id, by name.
    static let idSQL = "SELECT id FROM labels WHERE name = ?"
}

/// `threads`: the thread names each session recorded.
enum Threads {
    /// Records (or renames) a thread of a session.
    static let recordNameSQL = "INSERT OR REPLACE INTO threads (session_id, thread_id, name) VALUES (?, ?, ?)"

    /// Deletes a session's thread names.
    static let deleteOfSessionSQL = "DELETE FROM threads WHERE session_id = ?"
}
