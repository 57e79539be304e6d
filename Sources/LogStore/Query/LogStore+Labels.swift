extension LogStore {
    /// Every label the store has recorded, sorted: those of its messages and of its network
    /// tasks' technical messages.
    ///
    /// ```swift
    /// let labels = try await store.labels()   // ["auth", "db", "http", …]
    /// let width = labels.map(\.count).max() ?? 0
    /// ```
    ///
    /// Cheap whatever the store's size: the store keeps each label once. A label stays listed
    /// after the sweep removed its last message, so the list may hold a few that no message has
    /// any more (``summary(_:buckets:)`` counts the messages per label).
    ///
    /// - Returns: the labels, in ascending order.
    /// - Throws: ``LogStoreError/closed`` after ``close()``; ``LogStoreError/database(_:)`` when SQLite fails.
    public func labels() async throws -> [String] {
        try checkOpen()
        return try await core.read { connection in
            let statement = try connection.cachedStatement(Labels.allSQL)
            defer { statement.reset() }
            var names: [String] = []
            while try statement.step() { names.append(statement.string(at: 1)) }
            return names.sorted()
        }
    }
}
