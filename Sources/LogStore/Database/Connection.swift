import CSQLite
import Synchronization

/// One SQLite connection, used by one thread at a time.
///
/// Connections are opened with `SQLITE_OPEN_NOMUTEX`: SQLite's own per-connection mutex costs
/// ~10 % of the writer's time (the benchmark method article, "Measurements behind the
/// constants"), and every connection here is confined to one
/// thread or serial queue by its owner.
final class Connection {
    /// The raw `sqlite3*` handle.
    let handle: OpaquePointer
    private var isClosed = false
    /// The file the connection opened (`:memory:` style names included).
    let path: String
    private var statementCache: [String: Statement] = [:]
    private var recentStatements = RecentStatements()
    /// The database file this connection holds, recorded so that no descriptor of it is opened
    /// outside SQLite meanwhile (``HeldDatabaseFiles``); nil in memory.
    private var heldFile: HeldDatabaseFiles.FileID?
    /// How many of this connection's ``Statement``s are alive (SQLite's own list,
    /// `sqlite3_next_stmt`, also holds the statements of virtual tables such as FTS5's).
    let liveStatements = LiveStatementCount()

    /// How a connection is opened.
    enum Mode {
        case readWrite(create: Bool)
        case readOnly
    }

    /// Opens a connection; the corresponding C function is `sqlite3_open_v2`.
    init(path: String, mode: Mode) throws(DatabaseError) {
        SQLiteLibrary.configureOnce()
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWrite(let create):
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        case .readOnly:
            flags |= SQLITE_OPEN_READONLY
        }
        var handle: OpaquePointer?
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let error = DatabaseError(resultCode: result, connection: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        // The file's own name, also for a URI; empty in memory. An immutable file (an archive's,
        // `file:…?immutable=1`) is read without any lock, so there is none to lose.
        if let name = sqlite3_db_filename(handle, "main"), sqlite3_uri_boolean(name, "immutable", 0) == 0 {
            heldFile = HeldDatabaseFiles.hold(path: String(cString: name))
        }
    }

    deinit {
        close()
    }

    /// Finalizes the cached statements and closes the connection; later use fails with
    /// `SQLITE_MISUSE`. The corresponding C function is `sqlite3_close_v2`.
    ///
    /// Every other statement of the connection must be gone by then: `sqlite3_close_v2` keeps a
    /// connection with a live statement open (a zombie) until the statement is finalized, and
    /// with it the file's descriptors and locks, after the store's close returned. Debug builds
    /// (the tests) stop at such a statement.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()
        recentStatements.removeAll()
        assert(liveStatements.count == 0, "closing \(path) with \(liveStatements.count) statement(s) still alive")
        sqlite3_close_v2(handle)
        // With a statement still alive, SQLite keeps the file open (a zombie) until it is
        // finalized: so does the record that keeps other descriptors of it away.
        if let heldFile { liveStatements.releaseWhenNoneLeft(heldFile) }
        heldFile = nil
    }

    /// Closes without the checkpoint SQLite makes when the last connection to a WAL database
    /// closes (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`): for an open that is refused, whose WAL must
    /// not be copied into the database file (it may be another database's, or hold only what the
    /// refused attempt wrote).
    func closeWithoutCheckpoint() {
        guard !isClosed else { return }
        _ = logstore_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)
        close()
    }

    /// Runs one or more SQL statements that return no rows; the corresponding C function is
    /// `sqlite3_exec`.
    func execute(_ sql: String) throws(DatabaseError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), handle, sql: sql)
    }

    /// A prepared statement from this connection's cache, reset; the caller binds every
    /// parameter (earlier bindings stay, so their buffers are reused).
    ///
    /// Statements are prepared with `SQLITE_PREPARE_PERSISTENT` because they live as long as
    /// the connection.
    func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Finalizes the cached statement of `sql`, if any: for statements on a table that is about
    /// to be dropped (a full-text index partition), which would otherwise stay cached unused.
    func forgetStatement(_ sql: String) {
        statementCache[sql] = nil
    }

    /// A statement its caller keeps for as long as the connection lives (the writer's insert
    /// sites: one per site spares each row a lookup by SQL text in ``cachedStatement(_:)``).
    /// Run with ``Statement/run()`` or reset after use, as a cached one.
    func persistentStatement(_ sql: String) throws(DatabaseError) -> Statement {
        try Statement(connection: self, sql: sql, persistent: true)
    }

    /// A statement of dynamic SQL that the next query of the same shape may run again
    /// (``RecentStatements``), reset; the caller binds every parameter and resets it when done,
    /// so it holds no read snapshot while kept.
    func recentStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = recentStatements.take(sql) { return statement }
        let statement = try Statement(connection: self, sql: sql, persistent: false)
        recentStatements.keep(statement, for: sql)
        return statement
    }

    /// A statement used once (dynamic SQL such as queries built from filters).
    func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        try Statement(connection: self, sql: sql, persistent: false)
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws and
    /// rethrows the body's error (a failed rollback is secondary and not reported over it).
    ///
    /// `BEGIN` and `COMMIT` are cached statements, not `sqlite3_exec` text parsed anew each time.
    func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try cachedStatement(kind.beginSQL).run()
        let value: T
        do {
            value = try body()
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
        do {
            try cachedStatement("COMMIT").run()
        } catch {
            // COMMIT can fail (SQLITE_FULL, SQLITE_IOERR) and leave the transaction open.
            if sqlite3_get_autocommit(handle) == 0 {
                _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            }
            throw error
        }
        return value
    }

    /// The kinds of transaction: the writer takes the write lock up front (`IMMEDIATE`) so a
    /// busy database is reported at `BEGIN`, not half-way through a batch.
    enum TransactionKind {
        case deferred, immediate

        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            }
        }
    }

    /// Runs one statement that returns no rows, with arguments.
    func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        try statement.run()
    }

    /// The first column of every row of `sql`, as integers.
    func integers(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> [Int64] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var values: [Int64] = []
        while try statement.step() { values.append(statement.int64(at: 0)) }
        return values
    }

    /// The first column of every row of `sql`, as text (NULL as "").
    func strings(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> [String] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var values: [String] = []
        while try statement.step() { values.append(statement.optionalString(at: 0) ?? "") }
        return values
    }

    /// The first column of the first row of `sql`, as an integer (pragmas, counts).
    func integer(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.isNull(at: 0) ? nil : statement.int64(at: 0)
    }

    /// The first column of the first row of `sql`, as a real number (times).
    func real(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> Double? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.isNull(at: 0) ? nil : statement.double(at: 0)
    }

    /// The first column of the first row of `sql`, as text.
    func text(_ sql: String) throws(DatabaseError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.isNull(at: 0) ? nil : statement.string(at: 0)
    }

    /// Turns foreign key enforcement on or off and checks that it took: SQLite ignores the
    /// pragma silently inside a transaction.
    func setForeignKeys(_ enabled: Bool) throws(DatabaseError) {
        try execute("PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")")
        guard try integer("PRAGMA foreign_keys") == (enabled ? 1 : 0) else {
            throw DatabaseError(
                extendedCode: SQLITE_ERROR, message: "foreign_keys could not be set (inside a transaction?)",
                sql: "PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")")
        }
    }

    /// Sets the longest string or blob (and row) this connection accepts, in bytes, and returns
    /// the previous limit; the corresponding C function is `sqlite3_limit(SQLITE_LIMIT_LENGTH)`.
    /// Tests lower it to make a bind fail for real.
    @discardableResult
    func setLengthLimit(_ bytes: Int32) -> Int32 {
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, bytes)
    }

    /// Rows changed by the last statement; the corresponding C function is `sqlite3_changes64`.
    var changes: Int64 { sqlite3_changes64(handle) }

    /// Rows changed since the connection opened; the corresponding C function is
    /// `sqlite3_total_changes64`.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// The rowid of the last insert; the corresponding C function is `sqlite3_last_insert_rowid`.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Pages this connection has written to the WAL (or, without one, to the database file;
    /// none for a database in memory) since it opened, counted at commit:
    /// `SQLITE_DBSTATUS_CACHE_WRITE`.
    var pagesWritten: Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_WRITE, &current, &highest, 0)
        return Int(current)
    }
}

/// Process-wide SQLite configuration, applied before the first connection opens.
enum SQLiteLibrary {
    private static let configured: Bool = {
        // The memory-statistics mutex is taken on every SQLITE_TRANSIENT copy (~10 % of the
        // writer's time: the benchmark method article); it can only be turned off before SQLite initialises.
        // When another library already initialised SQLite this returns SQLITE_MISUSE, harmlessly.
        _ = logstore_sqlite_disable_memstatus()
        return true
    }()

    static func configureOnce() {
        _ = configured
    }

    /// The SQLite version the process runs with.
    static var version: String { String(cString: sqlite3_libversion()) }
}

/// The number of a connection's statements not finalized yet; each ``Statement`` counts itself
/// in and out. Locked: a statement may be released on another thread than its connection's.
final class LiveStatementCount: Sendable {
    private let state = Mutex<(count: Int, fileToRelease: HeldDatabaseFiles.FileID?)>((0, nil))

    var count: Int { state.withLock { $0.count } }

    func add() { state.withLock { $0.count += 1 } }

    func remove() {
        let file = state.withLock { state -> HeldDatabaseFiles.FileID? in
            state.count -= 1
            guard state.count == 0 else { return nil }
            defer { state.fileToRelease = nil }
            return state.fileToRelease
        }
        if let file { HeldDatabaseFiles.release(file) }
    }

    /// Releases `file` (``HeldDatabaseFiles``) now, or when the last statement goes.
    func releaseWhenNoneLeft(_ file: HeldDatabaseFiles.FileID) {
        let releasesNow = state.withLock { state -> Bool in
            if state.count == 0 { return true }
            state.fileToRelease = file
            return false
        }
        if releasesNow { HeldDatabaseFiles.release(file) }
    }
}
