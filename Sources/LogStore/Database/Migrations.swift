/// The schema as an ordered list of migrations, keyed by `PRAGMA user_version`.
///
/// Migration `n` (1-based) moves a database from version `n - 1` to `n`. A migration is never
/// edited once released: stores made by earlier versions (see `Fixtures/`) must keep opening.
enum Migrations {
    /// The schema version this library writes.
    static var latestVersion: Int { all.count }

    static let all: [String] = [Schema.version1, Schema.version2]

    /// The first schema version with network tasks and blobs. A read-only store of an earlier
    /// version (it cannot be migrated without writing) simply has none.
    static let firstVersionWithTasks = 2

    /// Brings the database up to ``latestVersion``, each step in its own transaction.
    ///
    /// - Throws: ``LogStore/Error/unsupportedVersion(found:supported:)`` when the database is newer
    ///   than this library; it is left untouched.
    static func migrate(_ connection: Connection) throws {
        let current = try currentVersion(connection)
        guard current <= latestVersion else {
            throw LogStore.Error.unsupportedVersion(
                found: .schema(current), supported: .schema(latestVersion))
        }
        for version in current..<latestVersion {
            try connection.transaction {
                try connection.execute(all[version])
                try connection.execute("PRAGMA user_version = \(version + 1)")
            }
        }
    }

    /// The database's `user_version` (0 for an empty database).
    static func currentVersion(_ connection: Connection) throws -> Int {
        Int(try connection.integer("PRAGMA user_version") ?? 0)
    }
}
