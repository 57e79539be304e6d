/// The schema as an ordered list of migrations, keyed by `PRAGMA user_version`.
///
/// Migration `n` (1-based) moves a database from version `n - 1` to `n`. A migration is never
/// edited once released: stores made by earlier versions (see `Fixtures/`) must keep opening.
enum Migrations {
    /// The schema version this library writes.
    static var latestVersion: Int { all.count }

    static let all: [Step] = [
        Step(sql: Schema.version1), Step(sql: Schema.version2), Step(sql: Schema.version3, rebuildsTables: true),
        Step(sql: "", apply: Schema.version4), Step(sql: Schema.version5),
        Step(sql: Schema.version6), Step(sql: Schema.version7), Step(sql: Schema.version8),
        Step(sql: Schema.version9), Step(sql: Schema.version10),
        Step(sql: Schema.version11, apply: Schema.dropEmptyFirstPartition),
        Step(sql: Schema.version12), Step(sql: Schema.version13),
    ]

    /// One migration.
    struct Step: Sendable {
        let sql: String
        /// The step drops and recreates a table other tables refer to: it runs with foreign keys
        /// off (they cannot be switched inside a transaction) and checks them before committing.
        var rebuildsTables = false
        /// A step that needs more than static SQL (it reads the schema first), run after `sql`.
        var apply: (@Sendable (Connection) throws(DatabaseError) -> Void)?
    }

    /// The first schema version with network tasks and blobs. A read-only store of an earlier
    /// version (it cannot be migrated without writing) simply has none.
    static let firstVersionWithTasks = 2

    /// The first schema version whose `blob_totals` table keeps the blobs' count and sizes.
    static let firstVersionWithBlobTotals = 3

    /// The first schema version with the full-text index (`message_search`).
    static let firstVersionWithSearch = 5

    /// The first schema version with the task URL index (`task_search`).
    static let firstVersionWithTaskSearch = 6

    /// The first schema version with `tasks.direction` and the `task_rows` view. Tasks of an
    /// older store opened read-only are all outbound.
    static let firstVersionWithDirection = 7

    /// The first schema version whose database records its store's id (`store_identity`).
    static let firstVersionWithIdentity = 8

    /// The first schema version with the change history (`history`, `history_authors`).
    static let firstVersionWithHistory = 9

    /// The first schema version whose `history_authors` rows say whether each author asks for
    /// the retention guard (`guards_retention`). An older store opened read-only reads as one
    /// where no author asks (its guard was each sweeping process's own setting).
    static let firstVersionWithRetentionRequests = 10

    /// The first schema version whose full-text index of messages is in partitions
    /// (`search_partitions`), with `id_floors`.
    static let firstVersionWithSearchPartitions = 11

    /// The first schema version with `shippers` (``LogShipper``'s progress and counters).
    static let firstVersionWithShippers = 12

    /// The oldest schema an archive may hold: archives came with schema 6. An archive of an
    /// older library (schema 6 up to ``latestVersion``) opens with its private copy migrated.
    static let firstArchiveVersion = 6

    /// The database was written by a newer library: the store reports it as
    /// `unsupportedVersion`.
    struct NewerSchema: Error {
        let found: Int
        let supported: Int
    }

    /// Brings the database up to ``latestVersion`` (or `target`, an older version, for a
    /// database to compare an old one with), each step in its own transaction.
    ///
    /// - Throws: ``NewerSchema`` when the database is newer than this library; it is left
    ///   untouched.
    static func migrate(_ connection: Connection, upTo target: Int = latestVersion) throws {
        let current = try currentVersion(connection)
        guard current <= latestVersion else {
            throw NewerSchema(found: current, supported: latestVersion)
        }
        for version in current..<max(current, min(target, latestVersion)) {
            let step = all[version]
            if step.rebuildsTables { try connection.setForeignKeys(false) }
            let migrated = Result { try connection.transaction {
                // Another process may have migrated since the version was read outside.
                guard try currentVersion(connection) == version else { return }
                if !step.sql.isEmpty { try connection.execute(step.sql) }
                try step.apply?(connection)
                if step.rebuildsTables, try connection.integer("PRAGMA foreign_key_check") != nil {
                    throw DatabaseError(
                        extendedCode: 787,  // SQLITE_CONSTRAINT_FOREIGNKEY
                        message: "a row refers to a missing one after migration \(version + 1)", sql: nil)
                }
                try connection.execute("PRAGMA user_version = \(version + 1)")
            } }
            // Foreign keys come back on whether or not the step committed; the step's own
            // failure is reported first, a failure to restore them otherwise.
            let restored = Result { () throws(DatabaseError) in
                if step.rebuildsTables { try connection.setForeignKeys(true) }
            }
            try migrated.get()
            try restored.get()
        }
    }

    /// The database's `user_version` (0 for an empty database).
    static func currentVersion(_ connection: Connection) throws -> Int {
        Int(try connection.integer("PRAGMA user_version") ?? 0)
    }
}
