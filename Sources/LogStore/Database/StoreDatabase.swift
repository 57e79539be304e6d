import CSQLite

/// The store's database as SQLite sees it: the settings of its connections and the sequence that
/// opens, checks and migrates it. The store's opener adds the directory, the manifest, the lock
/// and the errors that name the store's files; the pragmas stay here.
enum StoreDatabase {
    /// Applies the writer connection's settings, in the order they must come: the busy timeout,
    /// the version check, `auto_vacuum` on an empty file (before its first table), the journal,
    /// foreign keys and the page cache.
    static func configureWriter(_ connection: Connection, options: LogStore.Options) throws {
        try connection.setBusyTimeout()
        try checkVersion(connection)
        let isEmpty = try Migrations.currentVersion(connection) == 0
            && (try connection.schemaObjectCount() ?? 0) == 0
        if isEmpty {
            // Must precede the first table: lets the sweep give pages back to the file system.
            try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        }
        try configureJournal(connection, options: options)
        try connection.execute("PRAGMA foreign_keys = ON")
        // Above SQLite's default 2 MB, so a batch transaction (BatchWriter.eventsPerTransaction)
        // rarely spills mid-way; 4 MB, not 8: the 1M-message benchmark ran as fast with 4 MB
        // (and with 2 MB), and the larger cache was ~11 MB of its peak RSS (pages plus the
        // allocator's slack around them).
        try connection.execute("PRAGMA cache_size = -4096")
    }

    /// Journal settings, each resting on SQLite's documentation (sqlite.org/pragma.html, /wal.html).
    private static func configureJournal(_ connection: Connection, options: LogStore.Options) throws {
        if options.contains(.unsafe) {
            // No rollback journal, no fsync, no shared-memory locking: fastest, and a crash can
            // corrupt the file. Only when asked for.
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("PRAGMA journal_mode = OFF")
            try connection.execute("PRAGMA synchronous = OFF")
            try connection.execute("PRAGMA temp_store = MEMORY")
            return
        }
        if !options.contains(.inMemory) {
            // WAL: readers never block the writer nor the writer them; commits append to the log.
            let mode = try connection.text("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(message: "could not enable WAL (got \(mode ?? "nothing"))")
            }
        }
        // NORMAL in WAL mode: a commit is atomic and survives a process crash; only a power loss
        // may roll back the last transactions. Set explicitly: Debian builds default WAL to FULL.
        try connection.execute("PRAGMA synchronous = NORMAL")
    }

    /// Bounds the WAL of a store on disk (not an unsafe or in-memory one) and sets up what copies
    /// it into the database: after a checkpoint the WAL is cut back to a sixteenth of the size
    /// limit (256 KiB–64 MiB), or it would keep the size of the largest transaction ever written.
    ///
    /// The checkpoints run on a ``WALCheckpointer``'s thread once the WAL holds half that
    /// sixteenth (at most SQLite's default of 1,000 pages: 4 MB, 6 % of a 64 MB limit), and the
    /// writer's commit copies the rest itself at four times that, within the sixteenth, unless
    /// a reader's snapshot stops the copies (``WALCheckpointPolicy``).
    ///
    /// - Returns: the checkpointer, to attach to the writer; nil when its connection could not
    ///   open, and then SQLite checkpoints in the commits at the first mark, as it did before
    ///   the thread: the store works either way.
    static func limitWAL(_ connection: Connection, sizeLimit: Int64) throws(DatabaseError) -> WALCheckpointer? {
        let walLimit = min(max(sizeLimit / 16, 256 << 10), 64 << 20)
        try connection.execute("PRAGMA journal_size_limit = \(walLimit)")
        let pageSize = try connection.pageSize() ?? 4096
        let limitFrames = Int(walLimit / pageSize)
        let checkpointFrames = min(1_000, max(64, limitFrames / 2))
        do {
            return try WALCheckpointer(
                path: connection.path, checkpointFrames: checkpointFrames,
                restartFrames: min(4 * checkpointFrames, limitFrames))
        } catch {
            try connection.execute("PRAGMA wal_autocheckpoint = \(checkpointFrames)")
            return nil
        }
    }

    /// The damage `PRAGMA quick_check` finds in a store of an older schema, nil when none or when
    /// the schema is current (or the file new).
    ///
    /// A migration copies and rewrites tables, and over a damaged page it could lose rows without
    /// a word, or commit half a store before the damage stops the open; checked first, nothing
    /// has been written. Once per store and library upgrade.
    static func damageBeforeMigrating(_ connection: Connection) throws -> String? {
        let version = try Migrations.currentVersion(connection)
        guard version > 0, version < Migrations.latestVersion else { return nil }
        let result = try connection.quickCheck()
        guard let result, result != "ok" else { return nil }
        return result
    }

    /// Brings the schema up to date; a schema newer than this library's is refused.
    static func migrate(_ connection: Connection) throws {
        do {
            try Migrations.migrate(connection)
        } catch let newer as Migrations.NewerSchema {
            throw LogStoreError.unsupportedVersion(found: .schema(newer.found), supported: .schema(newer.supported))
        }
    }

    /// Refuses a schema newer than this library's before anything is read as this one's.
    static func checkVersion(_ connection: Connection) throws {
        let found = try Migrations.currentVersion(connection)
        guard found <= Migrations.latestVersion else {
            throw LogStoreError.unsupportedVersion(found: .schema(found), supported: .schema(Migrations.latestVersion))
        }
    }

    /// A read-only connection with the busy timeout, its schema version checked.
    static func openReadOnly(path: String) throws -> Connection {
        let connection = try Connection(path: path, mode: .readOnly)
        try connection.setBusyTimeout()
        try checkVersion(connection)
        return connection
    }

    /// Opens the database at `path` read-write and closes it again, so SQLite checkpoints and
    /// deletes an empty WAL when this is the last connection (sqlite.org/wal.html); does nothing
    /// when the file cannot be opened.
    static func closeAsLastConnection(path: String) {
        // No busy timeout: a connection that has to wait is not the last one.
        guard let connection = try? Connection(path: path, mode: .readWrite(create: false)) else { return }
        // The WAL opens with the first read; closing then does the rest.
        _ = try? connection.schemaVersion()
        connection.close()
    }
}
