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
}
