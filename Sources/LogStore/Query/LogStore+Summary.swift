import Foundation

extension LogStore {
    /// Counts per level and per label of the messages `query` matches, and their spread over
    /// time in `buckets` equal buckets (its order, limit and cursor are ignored).
    ///
    /// ```swift
    /// let lastHour = MessageQuery(since: Date().addingTimeInterval(-3600))
    /// let summary = try await store.summary(lastHour, buckets: 30)
    /// print("\(summary.total) messages, \(summary.errorRate * 100) % errors")
    /// ```
    ///
    /// The counts are exact and agree with ``count(_:)-(MessageQuery)`` for the same query; the buckets add up
    /// to ``MessageSummary/total``. A query filtering by levels, labels and sessions only gets
    /// its totals from the counts the store keeps; the histogram reads the matching rows' times
    /// once (narrowed to the window's rows when the query has one). Reads committed messages
    /// only: call ``flush()`` first to see what was just logged.
    ///
    /// - Parameters:
    ///   - query: the messages to summarise; with ``MessageQuery/since`` and
    ///     ``MessageQuery/until`` the histogram spans exactly that window, otherwise it reaches
    ///     the oldest or newest matching message.
    ///   - buckets: how many buckets the histogram has, clamped to 1...1000. Default: 60.
    /// - Returns: the summary; with no match, zero counts and an empty histogram, or all-zero
    ///   buckets when the query gives both ends of its window (see ``MessageSummary``).
    /// - Throws: ``LogStoreError/closed`` after ``close()``; ``LogStoreError/database(_:)`` when SQLite fails.
    public func summary(_ query: MessageQuery, buckets: Int = 60) async throws -> MessageSummary {
        try checkOpen()
        return try await core.read { connection in
            try SummaryRows.summary(query, buckets: buckets, connection: connection)
        }
    }
}
