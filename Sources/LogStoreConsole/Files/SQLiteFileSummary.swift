import CSQLite
import Foundation

/// A table of an SQLite file and how many rows it has.
struct SQLiteTableSummary: Sendable, Equatable {
    /// The table's name.
    var name: String
    /// Its row count; nil when counting was given up (over the time budget, the database
    /// busy) or not tried (a virtual table, whose module code a count would run).
    var rows: Int?
}

/// The tables of an SQLite file and their row counts, read without changing it and within a
/// bounded time, for the file browser's preview.
///
/// The file may be a live database another process writes (a store the console itself serves),
/// so it is opened read-only (`mode=ro`) but never `immutable=1`: SQLite keeps taking its
/// locks and reading its WAL, so the counts are a consistent snapshot rather than a torn read.
/// All reads happen in one read transaction.
///
/// One side effect remains, the same as any reader's (`sqlite3 -readonly` included): a
/// WAL-mode database that no connection has open has no `-wal` and `-shm` files, and reading it
/// creates them (an empty `-wal` and the 32 KiB index) beside it; a read-only connection cannot
/// remove them on close. The next writer to close the database removes them. The alternatives
/// are worse: `readonly_shm=1` refuses such a database (and still leaves the `-wal`), and
/// `immutable=1` would read a live database without its locks.
///
/// Time is bounded three ways: a busy timeout for locks; a progress handler that interrupts any
/// statement once the budget is spent; and counts written as `count(*)` over a subquery with a
/// `LIMIT`. The plain `SELECT count(*) FROM t` compiles to one `OP_Count` instruction that
/// walks the whole b-tree in C without ever calling the progress handler (checked with
/// `EXPLAIN` on SQLite 3.40): a table of a hundred million rows could not be interrupted. The
/// subquery is not flattened (a `LIMIT` keeps it apart from an aggregate), so rows are stepped
/// and the handler runs; ``ConsoleFilesTests`` checks that a count over the budget is given up.
enum SQLiteFileSummary {
    /// The first 16 bytes of every SQLite database file.
    static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// How long a summary may take.
    struct Limits: Sendable {
        /// How long to wait for another connection's lock: 250 ms.
        var busyTimeoutMilliseconds: Int32 = 250
        /// The time reading the list of tables may take: 1 s (a schema of a million tables is
        /// not listed; the preview says so).
        var schemaBudget: Duration = .seconds(1)
        /// The time all counts together may take: 1 s. Counts not finished by then are nil.
        var budget: Duration = .seconds(1)
        /// Virtual machine instructions between two checks of the clock: 1,000 (a few
        /// microseconds of work).
        var instructionsPerCheck: Int32 = 1_000
    }

    /// The tables of the database at `path` and their counts, or an error message for the
    /// preview (a file that starts like a database but is not one is still a file the
    /// developer may look at: its failure is shown, not thrown).
    ///
    /// - Parameters:
    ///   - path: the database's absolute path, with no symbolic link in it.
    ///   - isStillTheFile: called once SQLite holds the file open and a read lock: whether the
    ///     path still names the file the browser checked. If not, nothing read is returned.
    static func summarize(
        path: String, limits: Limits = Limits(), isStillTheFile: () -> Bool
    ) -> (tables: [SQLiteTableSummary], error: String?) {
        var handle: OpaquePointer?
        // NOFOLLOW: the path is the real one the browser walked; a link in it now means it was
        // changed since, and SQLite must not follow it.
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let opened = sqlite3_open_v2(uri(for: path), &handle, flags, nil)
        defer { sqlite3_close_v2(handle) }
        guard opened == SQLITE_OK, let db = handle else {
            return ([], "SQLite could not open it: \(message(handle, opened))")
        }
        sqlite3_busy_timeout(db, limits.busyTimeoutMilliseconds)
        // The schema is the file's, which may be anyone's: no SQL functions with side effects
        // from views or triggers (none are run here, but nothing is lost by saying so).
        _ = logstore_sqlite_db_config_flag(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)

        let budget = Budget(deadline: .now + limits.schemaBudget)
        return withExtendedLifetime(budget) {
            sqlite3_progress_handler(db, limits.instructionsPerCheck, { context in
                guard let context else { return 0 }
                return Unmanaged<Budget>.fromOpaque(context).takeUnretainedValue().isSpent ? 1 : 0
            }, Unmanaged.passUnretained(budget).toOpaque())
            defer { sqlite3_progress_handler(db, 0, nil, nil) }

            // One snapshot for the schema and every count; the read lock is taken by the first read.
            if let error = run(db, "BEGIN") { return ([], error) }
            defer { _ = run(db, "COMMIT") }
            let schema: [(name: String, isVirtual: Bool)]
            switch tables(db) {
            case .success(let found): schema = found
            case .failure(let error): return ([], error.text)
            }
            guard isStillTheFile() else { return ([], "the file changed while it was being opened") }
            budget.deadline = .now + limits.budget

            var summaries: [SQLiteTableSummary] = []
            var error: String?
            for table in schema {
                guard !table.isVirtual, !budget.isSpent, error == nil else {
                    summaries.append(SQLiteTableSummary(name: table.name, rows: nil))
                    continue
                }
                switch count(db, table: table.name) {
                case .success(let rows):
                    summaries.append(SQLiteTableSummary(name: table.name, rows: rows))
                case .failure(let failure):
                    summaries.append(SQLiteTableSummary(name: table.name, rows: nil))
                    // Over the budget is what the nil says; a lock or corruption is worth a message.
                    if failure.code != SQLITE_INTERRUPT { error = failure.text }
                }
            }
            if budget.isSpent, error == nil, summaries.contains(where: { $0.rows == nil && !isVirtual($0.name, schema) }) {
                error = "some tables were too large to count within \(limits.budget)"
            }
            return (summaries, error)
        }
    }

    /// A failed statement: its result code and SQLite's message.
    private struct Failure: Error {
        var code: Int32
        var text: String
    }

    /// The deadline the progress handler checks. Used only on the thread running the summary.
    private final class Budget {
        var deadline: ContinuousClock.Instant
        init(deadline: ContinuousClock.Instant) { self.deadline = deadline }
        var isSpent: Bool { ContinuousClock.now >= deadline }
    }

    /// The ordinary and virtual tables, by name.
    private static func tables(_ db: OpaquePointer) -> Result<[(name: String, isVirtual: Bool)], Failure> {
        var found: [(name: String, isVirtual: Bool)] = []
        let sql = "SELECT name, sql LIKE 'CREATE VIRTUAL%' FROM sqlite_master WHERE type = 'table' ORDER BY name"
        return step(db, sql) { statement in
            guard let name = sqlite3_column_text(statement, 0) else { return }
            found.append((String(cString: name), sqlite3_column_int(statement, 1) != 0))
        }.map { found }
    }

    /// The rows of `table`, counted in steps the progress handler can interrupt (see the type's
    /// comment for why not a plain `count(*)`).
    private static func count(_ db: OpaquePointer, table: String) -> Result<Int, Failure> {
        let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        var rows = 0
        return step(db, "SELECT count(*) FROM (SELECT 1 FROM \(quoted) LIMIT -1)") { statement in
            rows = Int(sqlite3_column_int64(statement, 0))
        }.map { rows }
    }

    /// Runs a statement without results; its error message, or nil.
    private static func run(_ db: OpaquePointer, _ sql: String) -> String? {
        if case .failure(let failure) = step(db, sql, row: { _ in }) { return failure.text }
        return nil
    }

    /// Prepares `sql` and calls `row` for each result row.
    private static func step(_ db: OpaquePointer, _ sql: String, row: (OpaquePointer) -> Void) -> Result<Void, Failure> {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else {
            return .failure(Failure(code: prepared, text: message(db, prepared)))
        }
        while true {
            let result = sqlite3_step(statement)
            switch result {
            case SQLITE_ROW: row(statement)
            case SQLITE_DONE: return .success(())
            default: return .failure(Failure(code: result, text: message(db, result)))
            }
        }
    }

    private static func isVirtual(_ name: String, _ schema: [(name: String, isVirtual: Bool)]) -> Bool {
        schema.contains { $0.name == name && $0.isVirtual }
    }

    /// SQLite's message for `code` on `db` (or the code's own, without a connection).
    private static func message(_ db: OpaquePointer?, _ code: Int32) -> String {
        let text = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? sqlite3_errstr(code).map { String(cString: $0) } ?? "error"
        return "\(text) (SQLite code \(code))"
    }

    /// A `file:` URI for `path`, read-only: every byte outside the unreserved set and `/` is
    /// escaped, so a `?`, `#` or `%` in a name stays part of it.
    static func uri(for path: String) -> String {
        var uri = "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                uri += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return uri + "?mode=ro"
    }
}
