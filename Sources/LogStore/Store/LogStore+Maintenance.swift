public import Foundation

extension LogStore {
    /// Deletes every message and task logged before the call and every earlier session; the
    /// current session stays (it keeps logging). Freed pages go back to the file system.
    ///
    /// The deletion runs in the sweep's bounded steps: logging goes on meanwhile (what is logged
    /// during the removal stays), and the WAL stays at a transaction's size, however large the
    /// store. Another process logging into the same store keeps working: its writer restores its
    /// own session row with its next batch, and label names are kept (they are shared and tiny).
    ///
    /// - Throws: ``LogStoreError/readonly`` for a read-only store; ``LogStoreError/closed`` after ``close()``.
    public func removeAll() async throws {
        try checkWritable()
        guard let sweeper else { throw LogStoreError.readonly }
        try await sweeper.removeAll()
    }

    /// Deletes the given sessions and their messages and tasks, in the sweep's bounded steps
    /// (see ``removeAll()``). The current session's messages can be deleted too, but its row
    /// stays while it is logging.
    ///
    /// - Throws: ``LogStoreError/readonly`` for a read-only store; ``LogStoreError/closed`` after ``close()``.
    public func removeSessions(_ ids: Set<UUID>) async throws {
        try checkWritable()
        guard !ids.isEmpty else { return }
        guard let sweeper else { throw LogStoreError.readonly }
        try await sweeper.removeSessions(uuids: ids.map(\.uuidString))
    }

    /// Every session in the store, oldest first, each with what changed on the host since the
    /// one before it.
    public func sessions() async throws -> [Session] {
        try checkOpen()
        return try await core.read { try SessionRows.all($0) }
    }

    /// Runs read-only SQL on a read connection, for what the typed API does not cover. The
    /// schema is documented in README.md.
    ///
    /// ```swift
    /// let rows = try await store.read { db in
    ///     try db.rows("SELECT label, count(*) AS n FROM message_rows GROUP BY label")
    /// }
    /// ```
    ///
    /// - Throws: ``LogStoreError/database(_:)`` for invalid SQL or an attempt to write; an error
    ///   `body` throws of its own passes as it is.
    public func read<T: Sendable>(_ body: @escaping @Sendable (borrowing SQLReader) throws -> T) async throws -> T {
        try checkOpen()
        let readonlyWriterConnection = core.readers == nil
        return try await core.read { connection in
            // Reads that borrow the writer's connection must not write through it.
            if readonlyWriterConnection { try connection.setQueryOnly(true) }
            let reader = SQLReader(connection: connection, isWriterConnection: readonlyWriterConnection)
            let result = Result { try body(reader) }
            // A transaction left open, or a writer connection left query-only, would fail every
            // later write: those failures are reported here, over the body's own.
            let ended = Result { () throws(DatabaseError) in try reader.endOpenTransaction() }
            if readonlyWriterConnection { try connection.setQueryOnly(false) }
            try ended.get()
            return try result.get()
        }
    }
}
