import CSQLite

/// Copying rows between two connections without converting their values: each column of a
/// selected row is bound as it is (`sqlite3_bind_value` of `sqlite3_column_value`), so types,
/// blobs and NULLs arrive unchanged, at C speed.
extension Connection {
    /// Runs `select` (with `arguments`) on `source` and inserts each row it returns into `table`
    /// here (`INSERT OR IGNORE` when `ignoringDuplicates`), its columns in order as the table's;
    /// returns how many rows it copied.
    @discardableResult
    func copyRows(
        from source: Connection, select: String, _ arguments: [DatabaseValue] = [], into table: String,
        ignoringDuplicates: Bool = false
    ) throws(DatabaseError) -> Int {
        let rows = try source.prepare(select)
        try rows.bind(arguments)
        let columns = sqlite3_column_count(rows.handle)
        // By position, so the names must line up too: a schema whose columns were ordered
        // differently must fail here, not shift values into the wrong columns.
        let selected = (0..<columns).map { rows.columnName(at: $0) }
        let expected = try strings("SELECT name FROM pragma_table_info(?)", [.text(table)])
        guard selected == expected else {
            throw DatabaseError(
                extendedCode: SQLITE_ERROR,
                message: "a row copy into \(table) selects columns \(selected), the table has \(expected)", sql: select)
        }
        let placeholders = Array(repeating: "?", count: Int(columns)).joined(separator: ", ")
        let insert = "INSERT \(ignoringDuplicates ? "OR IGNORE " : "")INTO \(table) VALUES (\(placeholders))"
        let insertion = try prepare(insert)
        var count = 0
        while try rows.step() {
            for column in 0..<columns {
                let code = sqlite3_bind_value(insertion.handle, column + 1, sqlite3_column_value(rows.handle, column))
                guard code == SQLITE_OK else { throw DatabaseError(resultCode: code, connection: handle, sql: insert) }
            }
            try insertion.run()
            count += 1
        }
        return count
    }
}
