import CSQLite

/// A value stored in or bound to SQLite, for the read-only SQL entry point.
public enum DatabaseValue: Sendable, Hashable, Codable {
    /// SQL `NULL`.
    case null
    /// An `INTEGER`.
    case integer(Int64)
    /// A `REAL`.
    case real(Double)
    /// `TEXT`, as UTF-8.
    case text(String)
    /// A `BLOB`'s bytes.
    case blob([UInt8])

    /// The value as an integer, when it is one.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The value as a floating-point number (integers convert).
    public var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The value as text, when it is text.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

extension DatabaseValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral,
    ExpressibleByNilLiteral
{
    /// An integer literal as ``integer(_:)``, so arguments read `[42]`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A string literal as ``text(_:)``, so arguments read `["db"]`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// A floating-point literal as ``real(_:)``.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// `nil` as ``null``.
    public init(nilLiteral: ()) { self = .null }
}

/// One row returned by the read-only SQL entry point.
public struct DatabaseRow: Sendable, Hashable {
    /// Column names, in the order of the query's result columns.
    public let columns: [String]
    /// Values, in the same order as ``columns``.
    public let values: [DatabaseValue]

    /// The value of the named column, or `nil` when the row has no such column.
    public subscript(column: String) -> DatabaseValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    /// The value at a 0-based column index.
    public subscript(index: Int) -> DatabaseValue {
        values[index]
    }
}

/// A read-only view of the database handed to ``LogStore/read(_:)``; valid only inside the closure.
public struct SQLReader: ~Copyable {
    let connection: Connection
    /// Whether this is the writer's connection (in-memory and unsafe stores), which is not
    /// opened read-only: `query_only` guards it, and SQL could turn that off.
    let isWriterConnection: Bool

    /// Runs a query and returns every row.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement; `?` placeholders take `arguments` in order.
    ///   - arguments: values bound to the placeholders.
    /// - Throws: ``DatabaseError`` when the SQL is invalid or tries to write.
    public func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [DatabaseRow] {
        let statement = try connection.prepare(sql)
        // On the writer's connection `query_only` is the only guard and the SQL itself could turn
        // it off: refuse statements that write before they run. (Reader connections are opened
        // read-only, so SQLite refuses there, and pragma reads such as `journal_mode` still work.)
        guard !isWriterConnection || sqlite3_stmt_readonly(statement.handle) != 0 else {
            throw DatabaseError(
                extendedCode: SQLITE_READONLY, message: "only read-only statements can run here", sql: sql)
        }
        try statement.bind(arguments)
        let columns = (0..<statement.columnCount).map(statement.columnName(at:))
        var rows: [DatabaseRow] = []
        while try statement.step() {
            rows.append(DatabaseRow(columns: columns, values: (0..<statement.columnCount).map(statement.value(at:))))
        }
        return rows
    }

    /// The first column of the first row, or `nil` when there is no row.
    public func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        try rows(sql, arguments).first?.values.first
    }

    /// Rolls back a transaction the caller's SQL began and left open (`BEGIN` is a read-only
    /// statement): on a pooled reader it would pin an old snapshot, and on the writer's own
    /// connection it would make every later commit fail. The corresponding C function is
    /// `sqlite3_get_autocommit`.
    ///
    /// - Throws: when the rollback fails and the transaction stays open (reported, since the
    ///   connection is then unusable for the writer).
    func endOpenTransaction() throws(DatabaseError) {
        guard sqlite3_get_autocommit(connection.handle) == 0 else { return }
        try connection.execute("ROLLBACK")
    }
}
