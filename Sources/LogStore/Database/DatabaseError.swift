import CSQLite

/// An error reported by SQLite, with everything needed to debug it.
///
/// `description` shows the extended result code, SQLite's message and the SQL that failed.
/// Bound arguments are never included: they may hold user data from logs.
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (for example `SQLITE_FULL` = 13, `SQLITE_IOERR_WRITE` = 778).
    public let extendedCode: Int32
    /// SQLite's message for the failure.
    public let message: String
    /// The SQL statement that failed, when the failure belongs to one.
    public let sql: String?
    /// The operating system's `errno` behind an I/O or open failure (0 when none).
    public let systemErrno: Int32

    /// The primary result code (the low byte of ``extendedCode``).
    public var code: Int32 { extendedCode & 0xFF }

    /// Whether the failure means the disk or the database is full.
    public var isFull: Bool { code == SQLITE_FULL }

    /// Whether the file is not a database or is damaged.
    public var isCorrupt: Bool { code == SQLITE_NOTADB || code == SQLITE_CORRUPT }

    /// Whether a virtual table found its own data damaged (`SQLITE_CORRUPT_VTAB`: the full-text
    /// index's pages), not the database's tables.
    var isVirtualTableCorrupt: Bool { extendedCode == SQLITE_CORRUPT | (1 << 8) }

    /// Whether another connection holds a lock that did not clear within the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// Whether the failure is an attempt to write through a read-only connection or file.
    var isReadOnly: Bool { code == SQLITE_READONLY }

    /// Whether reading or writing the file failed in the operating system (``systemErrno`` says
    /// why: `EFBIG`, `EIO`, …).
    var isIOError: Bool { code == SQLITE_IOERR }

    /// Whether a string, blob or statement was larger than SQLite's limits.
    var isTooBig: Bool { code == SQLITE_TOOBIG }

    /// A failure found by our own checks around SQLite (a row missing, a pragma refused), as
    /// SQLite's generic `SQLITE_ERROR`, so callers outside `Database/` name no result code.
    init(message: String, sql: String? = nil) {
        self.init(extendedCode: SQLITE_ERROR, message: message, sql: sql)
    }

    init(extendedCode: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// Whether the failure belongs to the database or the machine (busy, full, I/O error,
    /// damaged, read-only, out of memory, interrupted, cannot open, locking protocol) rather than
    /// to one statement's values: every other write would fail the same way now.
    var failsEveryStatement: Bool {
        isBusy || isFull || isCorrupt || isCannotOpen || isReadOnly
            || [SQLITE_NOMEM, SQLITE_INTERRUPT, SQLITE_IOERR, SQLITE_PROTOCOL].contains(code)
    }

    /// Whether SQLite could not open a file (permissions, read-only file system, missing
    /// directory); ``systemErrno`` says why.
    public var isCannotOpen: Bool { code == SQLITE_CANTOPEN }

    /// SQLite's extended code and message, and the SQL when there is one; never the bound values, which may hold user data.
    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " (in: \(sql))" }
        return text
    }
}

/// The one way into SQLite's result codes: anything but the accepted codes becomes a
/// ``DatabaseError`` carrying the connection's message and the SQL.
@inline(__always)
@discardableResult
func check(
    _ resultCode: Int32,
    _ connection: OpaquePointer?,
    sql: String? = nil,
    accepting accepted: Int32 = SQLITE_OK
) throws(DatabaseError) -> Int32 {
    if resultCode == accepted || resultCode == SQLITE_OK { return resultCode }
    throw DatabaseError(resultCode: resultCode, connection: connection, sql: sql)
}

extension DatabaseError {
    init(resultCode: Int32, connection: OpaquePointer?, sql: String?) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The extended code belongs to the last failing call on the connection; trust it only
        // when its primary code agrees with the code we were handed.
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        let message: String
        if let connection, let text = sqlite3_errmsg(connection) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(resultCode))
        }
        let systemErrno = connection.map { sqlite3_system_errno($0) } ?? 0
        self.init(extendedCode: code, message: message, sql: sql, systemErrno: systemErrno)
    }
}
