import CSQLite

/// A prepared SQL statement of one ``Connection``; the corresponding C type is `sqlite3_stmt`.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    private let connection: OpaquePointer
    private let liveStatements: LiveStatementCount

    init(connection: Connection, sql: String, persistent: Bool) throws(DatabaseError) {
        var handle: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let result = sqlite3_prepare_v3(connection.handle, sql, -1, flags, &handle, nil)
        guard result == SQLITE_OK, let handle else {
            throw DatabaseError(resultCode: result, connection: connection.handle, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection.handle
        liveStatements = connection.liveStatements
        liveStatements.add()
    }

    deinit {
        sqlite3_finalize(handle)
        liveStatements.remove()
    }

    /// The first bind since the last reset that SQLite refused (`SQLITE_TOOBIG`, `SQLITE_RANGE`,
    /// `SQLITE_NOMEM`), and the parameter's index. Binding does not throw, so call sites stay
    /// one line per parameter; ``step()`` and ``run()`` throw it instead of running with a
    /// parameter SQLite left NULL.
    private var bindFailure: (resultCode: Int32, index: Int32)?

    /// Resets the statement for another run and forgets a failed bind. Bindings stay: callers
    /// bind every parameter, and keeping them lets SQLite reuse each parameter's buffer instead
    /// of allocating anew.
    func reset() {
        sqlite3_reset(handle)
        bindFailure = nil
    }

    /// Advances to the next row: `true` when a row is ready, `false` when the statement is done.
    ///
    /// - Throws: a failed bind since the last reset (naming the parameter), or the step's failure.
    @discardableResult
    func step() throws(DatabaseError) -> Bool {
        if let bindFailure {
            self.bindFailure = nil
            sqlite3_reset(handle)
            throw DatabaseError(
                extendedCode: bindFailure.resultCode,
                message: "binding parameter \(bindFailure.index) failed: "
                    + String(cString: sqlite3_errstr(bindFailure.resultCode)),
                sql: sql)
        }
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = DatabaseError(resultCode: result, connection: connection, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows and resets it.
    func run() throws(DatabaseError) {
        defer { reset() }
        while try step() {}
    }

    // MARK: Binding (indexes are 1-based, as in SQLite)

    /// The one check of every `sqlite3_bind_*` result: keeps the first failure for ``step()``.
    @inline(__always)
    private func checkBind(_ resultCode: Int32, at index: Int32) {
        if resultCode != SQLITE_OK && bindFailure == nil { bindFailure = (resultCode, index) }
    }

    func bind(_ value: Int64, at index: Int32) {
        checkBind(sqlite3_bind_int64(handle, index, value), at: index)
    }

    func bind(_ value: Int, at index: Int32) {
        checkBind(sqlite3_bind_int64(handle, index, Int64(value)), at: index)
    }

    func bind(_ value: Double, at index: Int32) {
        checkBind(sqlite3_bind_double(handle, index, value), at: index)
    }

    func bind(_ value: String, at index: Int32) {
        value.withUTF8Bytes { bindText($0, at: index) }
    }

    /// Binds UTF-8 bytes as text (no `String` needed). The 64-bit length cannot trap; text over
    /// SQLite's length limit fails the bind (`SQLITE_TOOBIG`), reported by ``step()``.
    func bindText(_ utf8: UnsafeRawBufferPointer, at index: Int32) {
        // An empty buffer may have no address; SQLite reads a nil pointer as NULL, so an empty
        // string binds as a zero-length string literal instead.
        guard let base = utf8.baseAddress?.assumingMemoryBound(to: CChar.self) else {
            checkBind(sqlite3_bind_text64(handle, index, "", 0, logstore_sqlite_transient(), UInt8(SQLITE_UTF8)), at: index)
            return
        }
        checkBind(
            sqlite3_bind_text64(handle, index, base, UInt64(utf8.count), logstore_sqlite_transient(), UInt8(SQLITE_UTF8)),
            at: index)
    }

    func bind(_ value: String?, at index: Int32) {
        if let value { bind(value, at: index) } else { bindNull(at: index) }
    }

    func bind(_ bytes: UnsafeRawBufferPointer, at index: Int32) {
        // A zero-length blob must still be a blob, not NULL: SQLite treats a nil pointer as NULL.
        checkBind(
            sqlite3_bind_blob64(
                handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count),
                logstore_sqlite_transient()),
            at: index)
    }

    func bindNull(at index: Int32) {
        checkBind(sqlite3_bind_null(handle, index), at: index)
    }

    func bind(_ value: DatabaseValue, at index: Int32) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let value): bind(value, at: index)
        case .real(let value): bind(value, at: index)
        case .text(let value): bind(value, at: index)
        case .blob(let value): value.withUnsafeBytes { bind($0, at: index) }
        }
    }

    func bind(_ values: [DatabaseValue]) throws(DatabaseError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw DatabaseError(
                extendedCode: SQLITE_RANGE,
                message: "expected \(expected) arguments, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds `values` and runs the statement (which returns no rows).
    func bindAndRun(_ values: [DatabaseValue]) throws(DatabaseError) {
        try bind(values)
        try run()
    }

    // MARK: Columns (indexes are 0-based, as in SQLite)

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    func int(at index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        // Decoding repairs invalid UTF-8 instead of trusting what another tool may have written.
        return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func optionalString(at index: Int32) -> String? {
        isNull(at: index) ? nil : string(at: index)
    }

    /// The column as SQLite holds it as text, in place (no copy, no `String`); `nil` when it is
    /// NULL. The bytes are SQLite's: valid only until the next ``step()``, ``reset()`` or read of
    /// this column as another type, and not checked as UTF-8 (``string(at:)`` repairs them; a
    /// reader of these bytes checks them itself). The corresponding C functions are
    /// `sqlite3_column_text` and `sqlite3_column_bytes`.
    func unsafeText(at index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL else { return nil }
        // Text first, then its length: the order SQLite documents, so the length is the text's.
        // No text for a non-NULL column (out of memory) reads as empty, as in `string(at:)`.
        guard let text = sqlite3_column_text(handle, index) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index)))
    }

    func bytes(at index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(string(at: index))
        case SQLITE_BLOB: .blob(bytes(at: index))
        default: .null
        }
    }
}
