public import Foundation

extension LogStore {
    /// Network tasks matching `query`, one page at a time.
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a blank content type or an FTS5 URL
    ///   search that FTS5 cannot parse; ``LogStoreError/closed`` after ``close()``;
    ///   ``LogStoreError/database(_:)`` when SQLite fails.
    public func tasks(_ query: TaskQuery) async throws -> TaskPage {
        try checkOpen()
        return try await core.read { connection in
            try TaskRows.page(query, connection: connection)
        }
    }

    /// How many network tasks match `query`'s filters (its order, limit and cursor are ignored).
    ///
    /// ```swift
    /// let serverErrors = try await store.count(TaskQuery(statusCodes: 500...599, since: oneHourAgo))
    /// ```
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a blank content type or an FTS5 URL
    ///   search that FTS5 cannot parse; ``LogStoreError/closed`` after ``close()``;
    ///   ``LogStoreError/database(_:)`` when SQLite fails.
    public func count(_ query: TaskQuery) async throws -> Int {
        try checkOpen()
        return try await core.read { connection in
            try TaskRows.count(query, connection: connection)
        }
    }

    /// Everything stored about the task with this id, or `nil` when there is none. Bodies are
    /// not read here: fetch them with ``blobData(forKey:)`` when needed.
    public func task(id: UUID) async throws -> NetworkTaskDetails? {
        try checkOpen()
        return try await core.read { connection in
            try TaskRows.details(id, connection: connection)
        }
    }

    /// The body stored under `key` (40 lowercase hex characters, as ``NetworkTaskDetails``
    /// gives it), decompressed and checked against its SHA-1; `nil` when no body has that key.
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for anything but 40 lowercase hex characters
    ///   (it never becomes a path); ``LogStoreError/storeInvalid(_:reason:)`` when the stored body is
    ///   damaged.
    public func blobData(forKey key: String) async throws -> Data? {
        try checkOpen()
        let read = bodyReader()
        return try await core.read { connection in try read(key, connection) }
    }
}
