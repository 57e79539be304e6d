/// `tasks` and `task_transactions`: network tasks and their transactions' metrics. Their static
/// statements, prepared by their callers.
enum Tasks {
    /// A task at its creation: pending (state 0), with its request head; a second creation of the same
    /// uuid changes nothing. Its id last (NULL: the next, as SQLite gives it; see ``IDFloors``).
    static let insertCreatedSQL = """
        INSERT INTO tasks (uuid, session_id, label_id, created_at, task_type, state, method, url, host, path,
                           request_head_id, task_description, direction, id)
        VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (uuid) DO NOTHING
        """

    /// A pending task's progress.
    static let updateProgressSQL = "UPDATE tasks SET progress_completed = ?, progress_total = ? WHERE uuid = ? AND state = 0"

    /// A completed task, new; a uuid already taken changes nothing (the caller then updates the
    /// pending row). A direction not known (NULL) is outbound. Its id last, as for ``insertCreatedSQL``.
    static let insertCompletedSQL = """
        INSERT INTO tasks (session_id, label_id, created_at, task_type, state, method, url, host, path,
            status_code, error_code, error_domain, error_description, content_type, duration, redirect_count,
            request_head_id, response_head_id, request_body_id, response_body_id, request_body_size,
            response_body_size, body_flags, task_description, decoding_error, metadata, direction, uuid, id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                coalesce(?, \(NetworkTaskDirection.outbound.storedValue)), ?, ?)
        ON CONFLICT (uuid) DO NOTHING
        """

    /// Indexes in `task_search` the tasks whose ids are in the JSON array bound (schema 13: no
    /// insert trigger does). One statement for a transaction's tasks: FTS5 then writes them as
    /// one segment at commit.
    static let indexInsertedSQL = """
        INSERT INTO task_search (rowid, url, path)
        SELECT id, url, path FROM tasks WHERE id IN (SELECT value FROM json_each(?))
        """

    /// Rebuilds `task_search` from `tasks`: for a copy of rows, which no insert trigger indexed.
    static let rebuildSearchSQL = "INSERT INTO task_search (task_search) VALUES ('rebuild')"

    /// Completes a pending task's row; a completion without a description or direction keeps the
    /// creation's.
    static let completePendingSQL = """
        UPDATE tasks SET session_id = ?, label_id = ?, created_at = ?, task_type = ?, state = ?, method = ?,
            url = ?, host = ?, path = ?, status_code = ?, error_code = ?, error_domain = ?,
            error_description = ?, content_type = ?, duration = ?, redirect_count = ?, request_head_id = ?,
            response_head_id = ?, request_body_id = ?, response_body_id = ?, request_body_size = ?,
            response_body_size = ?, body_flags = ?, task_description = coalesce(?, task_description),
            decoding_error = ?, metadata = ?, direction = coalesce(?, direction)
        WHERE id = ?
        """

    /// One of a task's transactions (its metrics), by position.
    static let insertTransactionSQL = "INSERT OR REPLACE INTO task_transactions (task_id, position, json) VALUES (?, ?, ?)"

    /// A task's row id, state and request head, by uuid.
    static let byUUIDSQL = "SELECT id, state, request_head_id FROM tasks WHERE uuid = ?"

    /// What a task links: its two heads and two bodies.
    static let linksSQL = """
        SELECT request_head_id, response_head_id, request_body_id, response_body_id FROM tasks WHERE id = ?
        """

    /// Deletes a task (its transactions go by cascade).
    static let deleteSQL = "DELETE FROM tasks WHERE id = ?"

    /// Up to the second argument's tasks with a body, after the first argument's id, oldest first.
    static let withBodiesAfterSQL = """
        SELECT id, request_body_id, response_body_id FROM tasks
        WHERE id > ? AND (request_body_id IS NOT NULL OR response_body_id IS NOT NULL)
        ORDER BY id LIMIT ?
        """

    /// Lets go of a task's bodies, keeping in its flags which of them it had (the arguments: the
    /// flag of a dropped response body, of a dropped request body, the task's id).
    static let dropBodiesSQL = """
        UPDATE tasks SET request_body_id = NULL, response_body_id = NULL,
            body_flags = body_flags | CASE WHEN response_body_id IS NULL THEN 0 ELSE ? END
                                    | CASE WHEN request_body_id IS NULL THEN 0 ELSE ? END
        WHERE id = ?
        """

    /// The newest task's id.
    static let newestIDSQL = "SELECT max(id) FROM tasks"

    /// The tasks created before a time.
    static let countOlderSQL = "SELECT count(*) FROM tasks WHERE created_at < ?"

    /// A task's row id, by uuid.
    static let idByUUIDSQL = "SELECT id FROM tasks WHERE uuid = ?"

    /// How many tasks there are.
    static let countSQL = "SELECT count(*) FROM tasks"

    /// A task's transactions, in order.
    static let transactionsSQL = "SELECT position, json FROM task_transactions WHERE task_id = ? ORDER BY position"

    /// Every task's row id.
    static let idsSQL = "SELECT id FROM tasks"

    /// Lets go of the bodies of the ids of a JSON array (`?1`) in every task that links one, keeping
    /// in its flags which of them it had.
    static let dropBodyIDsSQL = """
        UPDATE tasks SET
            body_flags = body_flags
                | CASE WHEN request_body_id IN (SELECT value FROM json_each(?1)) THEN \(TaskBodyFlags.requestBodyDropped) ELSE 0 END
                | CASE WHEN response_body_id IN (SELECT value FROM json_each(?1)) THEN \(TaskBodyFlags.responseBodyDropped) ELSE 0 END,
            request_body_id = CASE WHEN request_body_id IN (SELECT value FROM json_each(?1)) THEN NULL ELSE request_body_id END,
            response_body_id = CASE WHEN response_body_id IN (SELECT value FROM json_each(?1)) THEN NULL ELSE response_body_id END
        WHERE request_body_id IN (SELECT value FROM json_each(?1)) OR response_body_id IN (SELECT value FROM json_each(?1))
        """
}

/// `task_heads`: request and response heads, deduplicated by key and counted by links.
enum TaskHeads {
    /// Links a head once more, when row `id` still holds the head of that key.
    static let linkSQL = "UPDATE task_heads SET link_count = link_count + 1 WHERE id = ? AND key = ?"

    /// A new head, linked once.
    static let insertSQL = "INSERT INTO task_heads (key, json, link_count) VALUES (?, ?, 1)"

    /// Drops one link to a head.
    static let unlinkSQL = "UPDATE task_heads SET link_count = link_count - 1 WHERE id = ?"

    /// Deletes a head no task links any more.
    static let deleteUnlinkedSQL = "DELETE FROM task_heads WHERE id = ? AND link_count <= 0"
}

/// Bits of `tasks.body_flags`.
enum TaskBodyFlags {
    /// The request body was larger than the size limit and was not stored.
    static let requestBodyOverLimit: Int64 = 1
    /// The response body was larger than the size limit and was not stored.
    static let responseBodyOverLimit: Int64 = 2
    /// The request body was removed by the sweep to keep blobs within their share.
    static let requestBodyDropped: Int64 = 4
    /// The response body was removed by the sweep to keep blobs within their share.
    static let responseBodyDropped: Int64 = 8
}
