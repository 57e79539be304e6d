import Foundation

extension HistoryAuthors {
    /// Whether the age sweep must keep what consumers have not seen: some registered, required
    /// author that has not retired asks for it (``HistoryConfiguration/retentionGuard`` of its
    /// last open). Every process's sweep asks this, inside the transaction of each deletion, so
    /// a tool opened without a history configuration follows the consumers' request, and a
    /// request made or withdrawn during a sweep counts from its next step.
    ///
    /// A batch author's request does not count: it consumes nothing, and holds nothing back,
    /// neither cleanup nor the sweep. `false` on a schema before the request was recorded.
    static func retentionGuardIsAsked(on connection: Connection) throws -> Bool {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithRetentionRequests else {
            return false
        }
        let statement = try connection.cachedStatement("""
            SELECT 1 FROM history_authors WHERE guards_retention = 1 AND kind = 0 AND retired IS NULL LIMIT 1
            """)
        defer { statement.reset() }
        return try statement.step()
    }
}
