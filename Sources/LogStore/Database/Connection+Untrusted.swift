import CSQLite

/// Settings for a database file that came from outside (an archive someone handed over): it may
/// be damaged or crafted, so SQLite is told to trust nothing in it.
extension Connection {
    /// How a connection to an outside file is hardened.
    enum UntrustedSchema {
        /// Only tables may be read: triggers and views of the file are never run (the archive's
        /// own document, which has neither).
        case tablesOnly
        /// The file's views and triggers may exist (a store's schema has both), but they are
        /// checked against the expected schema before any is used, and none may call a function
        /// with side effects (`trusted_schema = OFF`).
        case checkedSchema
    }

    /// Hardens the connection against a hostile file, before it reads anything of it:
    /// - `SQLITE_DBCONFIG_DEFENSIVE`: no `writable_schema`, no direct writes to shadow tables,
    ///   no corrupting pragmas;
    /// - `trusted_schema = OFF`: views and triggers may not call functions with side effects;
    /// - `cell_size_check = ON`: damaged b-tree cells are detected as corruption, not followed;
    /// - extension loading off; with `.tablesOnly`, triggers and views off too;
    /// - strings and blobs of at most `maxLength` bytes, so no row can demand unbounded memory.
    func hardenForUntrustedFile(_ schema: UntrustedSchema, maxLength: Int32) throws(DatabaseError) {
        var settings: [(Int32, Int32)] = [
            (SQLITE_DBCONFIG_DEFENSIVE, 1), (SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0),
            (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0),
        ]
        if schema == .tablesOnly {
            settings += [(SQLITE_DBCONFIG_ENABLE_TRIGGER, 0), (SQLITE_DBCONFIG_ENABLE_VIEW, 0)]
        }
        for (option, value) in settings where logstore_sqlite_db_config_flag(handle, option, value) != value {
            throw DatabaseError(
                extendedCode: SQLITE_ERROR, message: "SQLite refused the hardening setting \(option)", sql: nil)
        }
        try execute("PRAGMA trusted_schema = OFF")
        try execute("PRAGMA cell_size_check = ON")
        setLengthLimit(maxLength)
    }
}
