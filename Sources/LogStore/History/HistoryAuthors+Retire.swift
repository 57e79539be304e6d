import Foundation

extension HistoryAuthors {
    /// Marks `name` retired (keeping the date of an earlier retirement), so it no longer holds
    /// cleanup back, and ends its request for the retention guard: a role that is gone waits
    /// for nothing. Its row and cursor stay, for when it opens the store again (its
    /// configuration then says again whether it asks for the guard).
    ///
    /// - Returns: whether an author of that name exists.
    static func retire(_ name: String, on connection: Connection, at date: Date = Date()) throws -> Bool {
        let update = try connection.cachedStatement(HistoryTables.retireSQL)
        update.bind(date.timeIntervalSince1970, at: 1)
        update.bind(name, at: 2)
        try update.run()
        return connection.changes > 0
    }
}
