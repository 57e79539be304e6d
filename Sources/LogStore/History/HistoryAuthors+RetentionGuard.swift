import Foundation

extension HistoryAuthors {
    /// Whether the age sweep must keep what consumers have not seen: some registered, required
    /// author that has not retired asks for it (``HistoryConfiguration/retentionGuard`` of its
    /// last open). Every process's sweep asks this, inside the transaction of each deletion, so
    /// a tool opened without a history configuration follows the consumers' request, and a
    /// request made or withdrawn during a sweep counts from its next step.
    ///
    /// A batch author cannot ask (``HistoryConfiguration/validate()`` refuses it at open); a
    /// batch row that says it asks (written before that check, or by another tool) does not
    /// count: it consumes nothing. `false` on a schema before the request was recorded.
    static func retentionGuardIsAsked(on connection: Connection) throws -> Bool {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithRetentionRequests else {
            return false
        }
        let statement = try connection.cachedStatement(HistoryTables.anyRetentionGuardSQL)
        defer { statement.reset() }
        return try statement.step()
    }

    /// The names of the authors whose request turns the guard on (``retentionGuardIsAsked(on:)``),
    /// sorted; empty on a schema before the request was recorded.
    static func retentionGuardAuthorNames(on connection: Connection) throws -> [String] {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithRetentionRequests else {
            return []
        }
        let statement = try connection.cachedStatement(HistoryTables.retentionGuardNamesSQL)
        defer { statement.reset() }
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: 0)) }
        return names
    }
}
