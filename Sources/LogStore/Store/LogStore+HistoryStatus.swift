import Foundation

extension LogStore {
    /// Where the change history stands: every registered author with its cursor and how far
    /// behind it is, the history's size, the last cleanup and what a cleanup could delete now
    /// (`logstore history` prints it).
    ///
    /// Works on read-only stores and archives. A store whose history was never turned on, or
    /// one older than the history (schema 8 or earlier, opened read-only), gives an empty status
    /// (``HistoryStatus/isRecorded`` `false`), not an error.
    ///
    /// ```swift
    /// let status = try await store.historyStatus()
    /// for author in status.authors where author.behindChanges > 10_000 {
    ///     print("\(author.name) is \(author.behindTransactions) transactions behind")
    /// }
    /// ```
    ///
    /// - Throws: ``LogStoreError/closed`` after ``close()``; ``LogStoreError/database(_:)`` when
    ///   SQLite fails.
    public func historyStatus() async throws -> HistoryStatus {
        try checkOpen()
        return try await core.read { connection in
            var status = try HistoryStatusRows.status(on: connection)
            status.shippers = try ShipperStatusRows.all(on: connection)
            return status
        }
    }

    /// Retires the history author `name`: it no longer holds cleanup back, so history it has not
    /// consumed may go, and its request for the retention guard
    /// (``HistoryConfiguration/retentionGuard``) is withdrawn, so the age sweeps of every
    /// process stop keeping old rows for it (they still do while another author asks). Use it
    /// for a role that is gone for good (a decommissioned worker), which would otherwise keep
    /// every change since its last merge, and, if it asked for the guard, every old row a
    /// consumer had not read. Its row stays; when a process opens the store as that author again, the author
    /// is active again, its cursor where it was, asking for the guard if that open's
    /// configuration does.
    ///
    /// Retiring an author already retired keeps the date it was first retired.
    ///
    /// - Parameter name: a registered author (``HistoryStatus/authors``).
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` when no author of that name is
    ///   registered; ``LogStoreError/readonly`` for a read-only store or an archive;
    ///   ``LogStoreError/closed`` after ``close()``.
    public func retireHistoryAuthor(_ name: String) async throws {
        try checkWritable()
        let found = try await core.write { writer in
            try writer.transaction { try HistoryAuthors.retire(name, on: writer.connection) }
        }
        guard found else {
            throw LogStoreError.invalidArgument("no history author named '\(name)' is registered in this store")
        }
    }
}
