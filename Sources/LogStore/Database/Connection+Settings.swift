/// Per-connection settings the store changes while a connection is open, each one pragma, so
/// the layers above never spell pragmas themselves.
extension Connection {
    /// How long a connection waits for another process's lock before failing with SQLITE_BUSY.
    static let busyTimeoutMilliseconds = 5_000

    /// Sets how long the connection waits for another connection's lock (`PRAGMA busy_timeout`);
    /// 0 makes a busy lock fail at once.
    func setBusyTimeout(milliseconds: Int = Connection.busyTimeoutMilliseconds) throws(DatabaseError) {
        try execute("PRAGMA busy_timeout = \(milliseconds)")
    }

    /// Makes the connection refuse (or accept again) every change to the database
    /// (`PRAGMA query_only`): a read that borrows the writer's connection must not write through it.
    func setQueryOnly(_ enabled: Bool) throws(DatabaseError) {
        try execute("PRAGMA query_only = \(enabled ? "ON" : "OFF")")
    }
}

// MARK: Reading the file's state

/// What SQLite reports about the database file, each one pragma; nil when SQLite returns no row
/// (callers choose their own fallback, as they did with the pragma itself).
extension Connection {
    /// The size of one page in bytes (`PRAGMA page_size`).
    func pageSize() throws(DatabaseError) -> Int64? {
        try integer("PRAGMA page_size")
    }

    /// The pages the file holds, free ones included (`PRAGMA page_count`).
    func pageCount() throws(DatabaseError) -> Int64? {
        try integer("PRAGMA page_count")
    }

    /// The pages on the free list, which an incremental vacuum gives back (`PRAGMA freelist_count`).
    func freelistCount() throws(DatabaseError) -> Int64? {
        try integer("PRAGMA freelist_count")
    }

    /// A number that changes when another connection commits (`PRAGMA data_version`).
    func dataVersion() throws(DatabaseError) -> Int64? {
        try integer("PRAGMA data_version")
    }

    /// The schema version the file says it has (`PRAGMA user_version`).
    func userVersion() throws(DatabaseError) -> Int64? {
        try integer("PRAGMA user_version")
    }

    /// The file's application id (`PRAGMA application_id`): what kind of file it says it is.
    func applicationID() throws(DatabaseError) -> Int64? {
        try integer("PRAGMA application_id")
    }

    /// Reads the schema cookie (`PRAGMA schema_version`): the cheapest read that opens the WAL.
    func schemaVersion() throws(DatabaseError) -> Int64? {
        try integer("PRAGMA schema_version")
    }

    /// Reads every schema row, so a damaged schema page fails now rather than at the first query.
    func schemaObjectCount() throws(DatabaseError) -> Int64? {
        try integer("SELECT count(*) FROM sqlite_schema")
    }

    /// The first problem `PRAGMA quick_check(1)` finds, reading every page once; "ok" when none.
    func quickCheck() throws(DatabaseError) -> String? {
        try text("PRAGMA quick_check(1)")
    }
}

// MARK: Giving space back

extension Connection {
    /// How a checkpoint treats the readers and the WAL (`PRAGMA wal_checkpoint(…)`).
    enum CheckpointMode: String {
        /// Copies what no reader still needs, without waiting for anyone.
        case passive = "PASSIVE"
        /// Copies everything, waiting for readers, and leaves a zero-length WAL.
        case truncate = "TRUNCATE"
    }

    /// Copies the WAL's committed pages into the database file.
    func checkpoint(_ mode: CheckpointMode) throws(DatabaseError) {
        try execute("PRAGMA wal_checkpoint(\(mode.rawValue))")
    }

    /// Gives up to `pages` free pages back to the file system (`PRAGMA incremental_vacuum`);
    /// the database must have been created with `auto_vacuum = INCREMENTAL`.
    func incrementalVacuum(pages: Int) throws(DatabaseError) {
        try execute("PRAGMA incremental_vacuum(\(pages))")
    }
}

// MARK: Files written once

extension Connection {
    /// How a file the store writes in one go (an archive, a copy) keeps its journal.
    enum ScratchJournal: String {
        /// No journal: the file is temporary until complete, so a crash only loses a temporary file.
        case off = "OFF"
        /// A rollback journal deleted at each commit: the file must never be left half-written.
        case delete = "DELETE"
    }

    /// Sets the journal of a file written in one go, without syncs (`synchronous = OFF`).
    func setScratchJournal(_ journal: ScratchJournal) throws(DatabaseError) {
        try execute("PRAGMA journal_mode = \(journal.rawValue); PRAGMA synchronous = OFF")
    }

    /// Makes SQLite overwrite deleted content with zeros (`PRAGMA secure_delete`): a copy that
    /// drops rows must not keep their bytes in its free pages.
    func setSecureDelete(_ enabled: Bool) throws(DatabaseError) {
        try execute("PRAGMA secure_delete = \(enabled ? "ON" : "OFF")")
    }

    /// Gives a new, empty file written in one go its page size, no journal nor syncs, and the
    /// application id and version that tell what the file is.
    func setUpScratchFile(pageSize: Int, applicationID: Int64, version: Int) throws(DatabaseError) {
        try execute("""
            PRAGMA page_size = \(pageSize);
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA application_id = \(applicationID);
            PRAGMA user_version = \(version);
            """)
    }
}
