/// The SQL of a ``MessageQuery`` the full-text index serves: one with ``MessageQuery/text``,
/// or with metadata filters the index can narrow.
///
/// A search has two parts, read in one snapshot: the messages the index covers
/// (`id <= indexedThrough`, looked up in its partitions, ``SearchPartitions``), and the few it has not reached yet
/// (looked up in the temporary ``UnindexedMessages`` index, or read directly when only
/// metadata is asked). Every other filter is a condition on the joined `messages` row, and the
/// index drives the join (`CROSS JOIN`), walking its matches in id order, so "latest 100"
/// stops after 100 matches instead of collecting them all.
struct MessageSearchSQL {
    /// The `MATCH` expression for the index: the text search on the `text` column, and each
    /// metadata filter's necessary words on the `metadata` column.
    let indexMatch: String
    /// The `MATCH` expression for the unindexed messages (`nil`: read them directly).
    let unindexedMatch: String?
    /// Whether results carry highlights (a text search that asks for them).
    let highlights: Bool

    /// `nil` when the index does not serve the query (no text, no metadata filter it can
    /// narrow): the plain path answers it.
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for FTS5 syntax whose parentheses do not
    ///   pair up: the query is wrapped as `text : (…)`, and a stray `)` would close the wrapper
    ///   and reach the metadata column.
    init?(_ query: MessageQuery) throws {
        if let search = query.text, search.syntax == .fts5, !Self.parenthesesPair(search.text) {
            throw LogStoreError.invalidArgument(
                "the search \"\(search.text)\" is not a valid FTS5 query: its parentheses do not pair up")
        }
        let text = query.text?.matchExpression.map { "text : (\($0))" }
        let metadata = query.metadata.compactMap(Self.necessaryWords)
        let parts = (text.map { [$0] } ?? []) + metadata
        guard !parts.isEmpty else { return nil }
        indexMatch = parts.count == 1 ? parts[0] : parts.map { "(\($0))" }.joined(separator: " AND ")
        unindexedMatch = text
        highlights = text != nil && query.highlightsMatches
    }

    /// Whether every `(` outside a quoted string has its `)` after it, and no `)` comes first.
    static func parenthesesPair(_ text: String) -> Bool {
        var depth = 0
        var isQuoted = false
        for character in text {
            switch character {
            case "\"": isQuoted.toggle()  // a doubled quote toggles twice: still inside
            case "(" where !isQuoted: depth += 1
            case ")" where !isQuoted:
                depth -= 1
                if depth < 0 { return false }
            default: break
            }
        }
        return depth == 0
    }

    /// Words every message matching `filter` has in its `metadata` column, as an FTS5 query, or
    /// `nil` when the index cannot narrow it.
    ///
    /// The library writes metadata as JSON in which a key or value appears verbatim between
    /// quotes, so each one's words appear in the indexed text; the filter stays exact because the
    /// JSON condition is checked on every row the index finds. Not so for text with control
    /// characters: JSON writes a newline as `\n`, which the tokenizer reads as the letter `n`.
    /// At least one term must hold an ASCII letter or digit: a term with no words at all
    /// would match nothing.
    static func necessaryWords(_ filter: MetadataFilter) -> String? {
        let terms = filter.path + (filter.value.map { [$0] } ?? [])
        guard terms.allSatisfy({ $0.unicodeScalars.allSatisfy { $0.value >= 0x20 } }),
            terms.contains(where: { $0.unicodeScalars.contains { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) } })
        else { return nil }
        // Side by side (FTS5's implicit AND), not with `AND`: a term without words is an empty
        // phrase, which the implicit AND skips but `AND` makes match nothing.
        let words = terms.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " ")
        return "metadata : (\(words))"
    }

    /// The columns read, with the highlighted text last (`NULL` when not highlighting).
    func columns(table: String) -> String {
        MessageQuerySQL.columns + ", "
            + (highlights ? "highlight(\(table), 0, '\(Self.matchStart)', '\(Self.matchEnd)')" : "NULL")
    }

    /// Marks a highlight's start and end: private-use characters, so text that contains them
    /// is simply not highlighted (``Highlight``).
    static let matchStart = "\u{E000}"
    static let matchEnd = "\u{E001}"

    /// Rows of one part in id order, or by rank.
    enum Order {
        case newestFirst, oldestFirst, rank
    }

    /// The indexed part in one partition of the index (its FTS5 `table`): messages with ids in
    /// `ids` (within the partition) that match. Ordered by rank, each row carries its rank last.
    func indexedSQL(
        _ base: MessageQuerySQL, table: String, ids: ClosedRange<Int64>, order: Order, limit: Int?, offset: Int = 0
    ) -> (sql: String, arguments: [DatabaseValue]) {
        let sql = "SELECT \(columns(table: table))\(order == .rank ? ", \(table).rank" : "") FROM \(table) CROSS JOIN messages"
            + " ON messages.id = \(table).rowid WHERE \(table) MATCH ?"
            + " AND \(table).rowid BETWEEN ? AND ?"
            + base.conditions.map { " AND " + $0 }.joined()
            + Self.orderClause(order, rowid: "\(table).rowid")
            + Self.limitClause(limit)
        return (sql, Self.arguments(match: indexMatch, ids: ids, base, limit: limit, offset: offset))
    }

    /// The unindexed part: messages with ids in `ids` (past the index) that match.
    func unindexedSQL(
        _ base: MessageQuerySQL, ids: ClosedRange<Int64>, order: Order, limit: Int?, offset: Int = 0
    ) -> (sql: String, arguments: [DatabaseValue]) {
        let table = UnindexedMessages.table
        if let unindexedMatch {
            let sql = "SELECT \(columns(table: table)) FROM temp.\(table) CROSS JOIN messages"
                + " ON messages.id = \(table).rowid WHERE \(table) MATCH ?"
                + " AND \(table).rowid BETWEEN ? AND ?"
                + base.conditions.map { " AND " + $0 }.joined()
                + Self.orderClause(order, rowid: "\(table).rowid")
                + Self.limitClause(limit)
            return (sql, Self.arguments(match: unindexedMatch, ids: ids, base, limit: limit, offset: offset))
        }
        let sql = "SELECT \(columns(table: "")) FROM messages WHERE messages.id BETWEEN ? AND ?"
            + base.conditions.map { " AND " + $0 }.joined()
            + Self.orderClause(order == .rank ? .newestFirst : order, rowid: "messages.id")
            + Self.limitClause(limit)
        return (sql, Self.arguments(match: nil, ids: ids, base, limit: limit, offset: offset))
    }

    /// `LIMIT ? OFFSET ?` when there is a limit. Bounds, limits and offsets are parameters, not
    /// text, so queries of one shape share one prepared statement (``Connection/recentStatement(_:)``).
    private static func limitClause(_ limit: Int?) -> String {
        limit == nil ? "" : " LIMIT ? OFFSET ?"
    }

    /// The arguments of a part, in the order of its parameters: the match, the id bounds, the
    /// base query's conditions, the limit and offset.
    private static func arguments(
        match: String?, ids: ClosedRange<Int64>, _ base: MessageQuerySQL, limit: Int?, offset: Int
    ) -> [DatabaseValue] {
        (match.map { [DatabaseValue.text($0)] } ?? [])
            + [.integer(ids.lowerBound), .integer(ids.upperBound)]
            + base.conditionArguments
            + (limit.map { [.integer(Int64($0)), .integer(Int64(offset))] } ?? [])
    }

    private static func orderClause(_ order: Order, rowid: String) -> String {
        switch order {
        case .newestFirst: " ORDER BY \(rowid) DESC"
        case .oldestFirst: " ORDER BY \(rowid) ASC"
        case .rank: " ORDER BY rank, \(rowid) DESC"
        }
    }
}
