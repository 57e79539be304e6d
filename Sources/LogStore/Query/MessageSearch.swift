/// Runs a ``MessageSearchSQL`` query: its indexed and unindexed parts in one snapshot, in the
/// query's order, one page at a time.
enum MessageSearch {
    /// One page of the messages `query` selects.
    static func page(
        _ query: MessageQuery, _ base: MessageQuerySQL, _ search: MessageSearchSQL, connection: Connection
    ) throws -> MessagePage {
        try inSnapshot(query, search, connection) {
            let reader = try MessageReader(connection: connection)
            let parts = try Parts(query, base, search, connection: connection)
            let wanted = max(1, query.limit) + 1
            var messages: [LogStore.Message] = []
            var matches: [Int64: [Range<String.Index>]] = [:]
            let offset = query.cursor?.rankOffset ?? 0
            func read(_ sql: (sql: String, arguments: [DatabaseValue])) throws {
                let statement = try connection.recentStatement(sql.sql)
                defer { statement.reset() }
                try statement.bind(sql.arguments)
                while messages.count < wanted, try statement.step() {
                    let message = reader.message(statement)
                    if let highlighted = statement.optionalString(at: 11),
                        let ranges = Highlight.ranges(highlighted, in: message.text)
                    {
                        matches[message.id] = ranges
                    }
                    messages.append(message)
                }
            }
            switch query.order {
            case .newestFirst:
                if let ids = parts.unindexed { try read(search.unindexedSQL(base, ids: ids, order: .newestFirst, limit: wanted)) }
                for part in parts.indexed.reversed() where messages.count < wanted {
                    try read(search.indexedSQL(base, table: part.table, ids: part.ids, order: .newestFirst, limit: wanted - messages.count))
                }
            case .oldestFirst:
                for part in parts.indexed where messages.count < wanted {
                    try read(search.indexedSQL(base, table: part.table, ids: part.ids, order: .oldestFirst, limit: wanted - messages.count))
                }
                if let ids = parts.unindexed, messages.count < wanted {
                    try read(search.unindexedSQL(base, ids: ids, order: .oldestFirst, limit: wanted - messages.count))
                }
            case .relevance:
                // Ranked among the indexed messages, then the unindexed ones ranked among
                // themselves: bm25 weighs a word by how rare it is in its own index. Each
                // partition ranks its own matches; their best are merged by rank.
                var ranked: [(message: LogStore.Message, ranges: [Range<String.Index>]?, rank: Double)] = []
                var indexedTotal = 0
                for part in parts.indexed {
                    let sql = search.indexedSQL(base, table: part.table, ids: part.ids, order: .rank, limit: offset + wanted)
                    let statement = try connection.recentStatement(sql.sql)
                    defer { statement.reset() }
                    try statement.bind(sql.arguments)
                    while try statement.step() {
                        let message = reader.message(statement)
                        let ranges = statement.optionalString(at: 11).flatMap { Highlight.ranges($0, in: message.text) }
                        ranked.append((message, ranges, statement.double(at: 12)))
                    }
                }
                ranked.sort { $0.rank != $1.rank ? $0.rank < $1.rank : $0.message.id > $1.message.id }
                for row in ranked.dropFirst(offset).prefix(wanted) {
                    if let ranges = row.ranges { matches[row.message.id] = ranges }
                    messages.append(row.message)
                }
                if !parts.indexed.isEmpty {
                    indexedTotal = messages.isEmpty
                        ? try parts.indexed.reduce(0) { total, part in
                            total + (try count(search.indexedSQL(base, table: part.table, ids: part.ids, order: .oldestFirst, limit: nil), connection))
                        }
                        : offset + messages.count
                }
                if let ids = parts.unindexed, messages.count < wanted {
                    try read(search.unindexedSQL(
                        base, ids: ids, order: .rank, limit: wanted - messages.count, offset: max(0, offset - indexedTotal)))
                }
            }
            var page = MessageRows.page(messages, limit: query.limit)
            if query.order == .relevance {
                page.nextCursor = page.nextCursor.map { _ in MessageQuery.Cursor(rankOffset: offset + page.messages.count) }
            }
            // The row read past the page (to tell whether another follows) is not on it.
            let shown = Set(page.messages.map(\.id))
            page.matches = matches.filter { shown.contains($0.key) }
            return page
        }
    }

    /// How many messages `query` selects.
    static func count(
        _ query: MessageQuery, _ base: MessageQuerySQL, _ search: MessageSearchSQL, connection: Connection
    ) throws -> Int {
        try inSnapshot(query, search, connection) {
            try wholeParts(query, base, search, connection).reduce(0) { total, part in total + (try count(part, connection)) }
        }
    }

    /// The ids of every message `query` selects, in id order.
    static func matchingIDs(
        _ query: MessageQuery, _ base: MessageQuerySQL, _ search: MessageSearchSQL, connection: Connection
    ) throws -> [Int64] {
        try inSnapshot(query, search, connection) {
            var ids: [Int64] = []
            for part in try wholeParts(query, base, search, connection) {
                let statement = try connection.prepare("SELECT id FROM (\(part.sql))")
                try statement.bind(part.arguments)
                while try statement.step() { ids.append(statement.int64(at: 0)) }
            }
            return ids
        }
    }

    /// The SQL of both parts over every match, in id order: the query without its cursor.
    private static func wholeParts(
        _ query: MessageQuery, _ base: MessageQuerySQL, _ search: MessageSearchSQL, _ connection: Connection
    ) throws -> [(sql: String, arguments: [DatabaseValue])] {
        var unpaged = query
        unpaged.cursor = nil
        let parts = try Parts(unpaged, base, search, connection: connection)
        return parts.indexed.map { search.indexedSQL(base, table: $0.table, ids: $0.ids, order: .oldestFirst, limit: nil) }
            + [parts.unindexed.map { search.unindexedSQL(base, ids: $0, order: .oldestFirst, limit: nil) }].compactMap { $0 }
    }

    /// The id ranges of the two parts a query reads, after the query's cursor and time window.
    private struct Parts {
        /// The index's partitions to read, oldest first, each with the ids to read in it.
        var indexed: [(table: String, ids: ClosedRange<Int64>)] = []
        /// Ids past the index, ready in the temporary index; `nil` when none are to be read.
        var unindexed: ClosedRange<Int64>?

        init(_ query: MessageQuery, _ base: MessageQuerySQL, _ search: MessageSearchSQL, connection: Connection) throws {
            var lower = base.idRange?.lowerBound ?? 1
            var upper = base.idRange?.upperBound ?? Int64.max
            if let cursor = query.cursor, cursor.rankOffset == nil {
                if query.order == .oldestFirst {
                    lower = max(lower, cursor.lastID + 1)
                } else {
                    upper = min(upper, cursor.lastID - 1)
                }
            }
            let indexedThrough = try SearchIndex.indexedThrough(connection)
            let reach = indexedThrough ?? 0
            for partition in try SearchPartitions.list(connection) {
                let first = max(lower, partition.firstID)
                let last = min(upper, partition.lastID, reach)
                if first <= last { indexed.append((partition.table, first...last)) }
            }
            let first = max(lower, reach + 1)
            if first <= upper {
                let hasRows = search.unindexedMatch == nil
                    ? true
                    : try UnindexedMessages.index(after: first - 1, connection: connection)
                if hasRows { unindexed = first...upper }
            }
        }
    }

    private static func count(_ part: (sql: String, arguments: [DatabaseValue]), _ connection: Connection) throws -> Int {
        Int(try connection.integer("SELECT count(*) FROM (\(part.sql))", part.arguments) ?? 0)
    }

    /// Runs `body` in one read snapshot (the index's position and both parts agree): its own
    /// transaction, or the caller's (a tail's or a summary's read) when one is open; and turns
    /// an FTS5 query SQLite refuses into ``LogStoreError/invalidArgument(_:)``, and a failure of
    /// a damaged index into ``SearchFailure/DamagedIndex``.
    private static func inSnapshot<T>(
        _ query: MessageQuery, _ search: MessageSearchSQL, _ connection: Connection, _ body: () throws -> T
    ) throws -> T {
        do {
            if connection.isInTransaction { return try body() }
            return try connection.transaction(.deferred, body)
        } catch let error as DatabaseError {
            throw SearchFailure.classify(
                error, expression: search.indexMatch, columns: ["text", "metadata"],
                callerSyntax: query.text?.syntax == .fts5, describing: "the search \"\(query.text?.text ?? "")\"")
        }
    }
}
