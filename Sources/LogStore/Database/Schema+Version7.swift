extension Schema {
    /// Version 7: a task's direction, and views for tasks and the task of a technical message.
    ///
    /// `tasks.direction` is 0 (outbound, a call the app made) or 1 (inbound, a request a server
    /// handled). `ADD COLUMN` with a constant default rewrites no row: every task of an older
    /// store reads as outbound, which it was, since nothing else could be recorded then.
    ///
    /// Most stores hold one direction only (a client's calls, or a server's requests), so an
    /// index on the whole column would select everything or nothing; the partial index holds
    /// only the inbound tasks (ordered by row id, as pages are), as `messages_by_level` holds
    /// only warnings and up. A filter for inbound tasks (`direction = 1`, the index's own
    /// condition, so SQLite can use it) reads it; one for outbound tasks scans, as it would
    /// select almost every row of a client's store anyway. A client's store pays nothing for the
    /// index (no row enters it); a server's pays one index entry per task.
    ///
    /// A value the view does not know (a row another tool wrote) shows as NULL, not as a guess.
    ///
    /// `task_rows` is to tasks what `message_rows` is to messages: the row outside tools read,
    /// with states, types and directions by name and times as ISO 8601 text. `message_rows`
    /// gains `task_id`, the row id of the task a technical message belongs to (NULL for a
    /// logged message), which joins to `task_rows.id`. Views hold no rows: dropping and
    /// creating them again is cheap and rewrites nothing.
    static let version7 = """
        ALTER TABLE tasks ADD COLUMN direction INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX tasks_by_direction ON tasks (direction) WHERE direction = 1;

        DROP VIEW IF EXISTS message_rows;
        CREATE VIEW message_rows AS
        SELECT messages.id,
               strftime('%Y-%m-%dT%H:%M:%fZ', messages.created_at, 'unixepoch') AS time,
               CASE messages.level
                   WHEN 0 THEN 'trace' WHEN 1 THEN 'debug' WHEN 2 THEN 'info' WHEN 3 THEN 'notice'
                   WHEN 4 THEN 'warning' WHEN 5 THEN 'error' ELSE 'critical' END AS level,
               labels.name AS label,
               messages.text,
               messages.metadata,
               messages.file,
               messages.function,
               messages.line,
               messages.thread_id,
               threads.name AS thread_name,
               sessions.uuid AS session,
               messages.task_id
        FROM messages
        JOIN labels ON labels.id = messages.label_id
        JOIN sessions ON sessions.id = messages.session_id
        LEFT JOIN threads ON threads.session_id = messages.session_id AND threads.thread_id = messages.thread_id;

        DROP VIEW IF EXISTS task_rows;
        CREATE VIEW task_rows AS
        SELECT tasks.id,
               tasks.uuid,
               strftime('%Y-%m-%dT%H:%M:%fZ', tasks.created_at, 'unixepoch') AS time,
               CASE tasks.direction WHEN 0 THEN 'outbound' WHEN 1 THEN 'inbound' END AS direction,
               CASE tasks.state WHEN 0 THEN 'pending' WHEN 1 THEN 'success' WHEN 2 THEN 'failure' END AS state,
               CASE tasks.task_type
                   WHEN 0 THEN 'data' WHEN 1 THEN 'download' WHEN 2 THEN 'upload' WHEN 3 THEN 'stream'
                   WHEN 4 THEN 'webSocket' END AS type,
               tasks.method,
               tasks.url,
               tasks.host,
               tasks.path,
               tasks.status_code,
               tasks.duration,
               CASE WHEN tasks.duration IS NULL THEN NULL
                    ELSE strftime('%Y-%m-%dT%H:%M:%fZ', tasks.created_at + tasks.duration, 'unixepoch') END AS end_time,
               tasks.content_type,
               tasks.request_body_size,
               tasks.response_body_size,
               tasks.error_code,
               tasks.error_domain,
               tasks.error_description,
               tasks.redirect_count,
               tasks.task_description,
               labels.name AS label,
               sessions.uuid AS session
        FROM tasks
        JOIN labels ON labels.id = tasks.label_id
        JOIN sessions ON sessions.id = tasks.session_id;
        """
}
