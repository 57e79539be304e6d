/// The statements of the dynamic SQL a connection ran last (searches built from a query's
/// filters), kept prepared for the next query with the same shape: a search reads one statement
/// per partition of the full-text index, and preparing one took ~23 µs of a query of ~300 µs
/// (measured with `logstore-bench --only search`). Bounded, least recently used first out, so a
/// connection that sees many shapes keeps only the latest.
struct RecentStatements {
    /// The most statements kept.
    static let capacity = 32

    private var statements: [String: Statement] = [:]
    /// SQL texts, least recently used first.
    private var order: [String] = []

    /// The kept statement of `sql`, reset, or `nil`. One caller at a time: a caller resets the
    /// statement when done with it, before anything asks for the same SQL again (a search reads
    /// its parts one after the other, each part's SQL naming its own partition).
    mutating func take(_ sql: String) -> Statement? {
        guard let statement = statements[sql] else { return nil }
        if let index = order.firstIndex(of: sql) { order.remove(at: index) }
        order.append(sql)
        statement.reset()
        return statement
    }

    /// Keeps `statement` for `sql`, finalizing the least recently used one past ``capacity``.
    mutating func keep(_ statement: Statement, for sql: String) {
        statements[sql] = statement
        order.append(sql)
        while order.count > Self.capacity {
            statements[order.removeFirst()] = nil
        }
    }

    /// Finalizes every kept statement.
    mutating func removeAll() {
        statements.removeAll()
        order.removeAll()
    }
}
