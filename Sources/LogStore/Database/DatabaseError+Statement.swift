import CSQLite

extension DatabaseError {
    /// Whether SQLite failed with its generic `SQLITE_ERROR`. Raised while stepping a statement
    /// that prepared, it blames a value rather than the SQL: for a full-text `MATCH`, the query
    /// text FTS5 could not parse (`fts5: syntax error near …`, `unterminated string`,
    /// `no such column: …`, `unknown special query: …`), which the query layer reports as the
    /// caller's invalid argument.
    var isGenericError: Bool { code == SQLITE_ERROR }
}
