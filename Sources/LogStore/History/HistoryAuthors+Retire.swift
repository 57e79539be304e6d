import Foundation

extension HistoryAuthors {
    /// Marks `name` retired (keeping the date of an earlier retirement), so it no longer holds
    /// cleanup back; its row and cursor stay, for when it opens the store again.
    ///
    /// - Returns: whether an author of that name exists.
    static func retire(_ name: String, on connection: Connection, at date: Date = Date()) throws -> Bool {
        let update = try connection.cachedStatement("""
            UPDATE history_authors SET retired = coalesce(retired, ?) WHERE name = ?
            """)
        update.bind(date.timeIntervalSince1970, at: 1)
        update.bind(name, at: 2)
        try update.run()
        return connection.changes > 0
    }
}
