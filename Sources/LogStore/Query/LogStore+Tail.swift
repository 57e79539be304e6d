extension LogStore {
    /// Follows the store: every message matching `query` as it is committed, by this process or
    /// by another process writing the same store, in commit (id) order, none missed or repeated.
    ///
    /// ```swift
    /// let errors = MessageQuery(levels: .error ... .critical)
    /// for try await message in try await store.tail(errors, from: .last(10)) {
    ///     print(message.createdAt, message.label, message.text)
    ///     cursor = MessageQuery.Cursor(lastID: message.id)   // resume later with .after(cursor)
    /// }
    /// ```
    ///
    /// Every filter of `query` applies (its order, limit and cursor do not: a tail goes oldest
    /// first from `start`). Messages are read from the store a page
    /// (``MessageTail/pageSize``) at a time, only when the consumer has taken the previous
    /// page: a slow consumer holds at most one page in memory, and nothing is lost, because
    /// the store is the buffer. In this process the writer's commits wake the tail at once;
    /// another process's commits are noticed within 50 ms (`PRAGMA data_version`, polled while
    /// any tail runs), so a message logged elsewhere arrives within that process's save
    /// interval plus about 50 ms. A store opened `.readonly` tails too.
    ///
    /// **Gaps.** Unless the sweep, ``removeAll()`` or ``removeSessions(_:)`` removes messages
    /// before the tail has read them: then `onGap` is called, before the next message, with the
    /// ids skipped. The tail tells exactly when a match it had seen committed (the first one
    /// past its page) is gone, which is how the sweep overtakes a slow tail (it deletes the
    /// oldest first), and when a resumed cursor's message and everything up to the oldest left
    /// were swept. It cannot tell which of the removed rows matched (they are gone), nor notice
    /// rows removed further ahead while the next one it expects remains (``removeSessions(_:)``
    /// of a session between others). When the newest rows are removed, SQLite hands their ids
    /// out again; the tail notices (the row at its position changed) and goes on with the new
    /// rows.
    ///
    /// **End.** The sequence finishes when the consuming task is cancelled (within a read: a
    /// waiting tail ends at once) or when the store closes; a database error is thrown.
    ///
    /// - Parameters:
    ///   - query: the filters; default everything (but network tasks' technical messages).
    ///   - start: where to start; default ``TailStart/now``, only messages committed after the
    ///     call returns.
    ///   - onGap: called, on the consuming task, when messages were removed before they could
    ///     be yielded.
    /// - Throws: ``LogStoreError/closed`` after ``close()``; ``LogStoreError/database(_:)`` when
    ///   reading the start position fails.
    public func tail(
        _ query: MessageQuery = MessageQuery(), from start: TailStart = .now,
        onGap: (@Sendable (TailGap) -> Void)? = nil
    ) async throws -> MessageTail {
        try checkOpen()
        let (position, gap) = try await core.read { connection in
            try TailRows.start(query, from: start, pageSize: MessageTail.pageSize, connection: connection)
        }
        return MessageTail(store: core, query: query, position: position, startGap: gap, onGap: onGap)
    }
}
