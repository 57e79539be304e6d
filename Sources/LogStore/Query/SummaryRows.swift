import Foundation

/// Answers ``LogStore/summary(_:buckets:)`` in one read transaction, so the totals and the
/// histogram describe the same snapshot.
///
/// What each part costs (README.md "Summaries"):
/// - Totals per level and label come from `message_counts` (a few rows) when the query filters
///   by levels, labels and sessions only; any other filter, a time window included, counts
///   them in the histogram's scan. (`message_counts` has no time dimension.)
/// - The histogram needs each matching row's time and level: the rows are read once, in id
///   order, and counted into buckets here rather than by SQL's `GROUP BY` (which sorts every
///   row first). A time window or session filter is narrowed to an id range by
///   `message_blocks` (``MessageQuerySQL``), so "the last hour" reads the last hour's rows.
/// - `message_blocks.message_count` is not used: the sweep deletes rows without decrementing
///   it, it counts technical messages too, and it has no per-level split, so it is exact for
///   none of the questions asked here.
/// - An open-ended interval's ends (the oldest and newest matching message) come from walking
///   the blocks in order of their recorded times and reading only the blocks that can hold a
///   newer (or older) match than the best one found, usually one block per end.
enum SummaryRows {
    /// The bucket counts ``LogStore/summary(_:buckets:)`` accepts; others are clamped to it.
    static let bucketRange = 1...1000

    /// After this many blocks without settling an end of the interval, one query over every
    /// matching row is cheaper than reading further blocks one by one (a rare label, say).
    static let blockWalkLimit = 8

    private static let levelCount = LogStore.Level.allCases.count

    static func summary(_ query: MessageQuery, buckets: Int, connection: Connection) throws -> MessageSummary {
        let bucketCount = min(max(buckets, bucketRange.lowerBound), bucketRange.upperBound)
        return try connection.transaction(.deferred) {
            try summaryInOneSnapshot(query, bucketCount: bucketCount, connection: connection)
        }
    }

    private static func summaryInOneSnapshot(
        _ query: MessageQuery, bucketCount: Int, connection: Connection
    ) throws -> MessageSummary {
        guard let rows = try MessageRows.matchingRowsSQL(query, connection: connection) else {
            return empty(query, bucketCount: bucketCount)
        }
        var lower = query.since?.timeIntervalSince1970
        var upper = query.until?.timeIntervalSince1970
        if lower == nil || upper == nil {
            guard let bounds = try matchingBounds(rows, query: query, connection: connection) else {
                return empty(query, bucketCount: bucketCount)
            }
            lower = lower ?? bounds.lowerBound
            upper = upper ?? bounds.upperBound
        }
        guard let start = lower, let end = upper, start <= end else { return empty(query, bucketCount: bucketCount) }

        let kept = try keptCounts(query, connection: connection)
        let width = (end - start) / Double(bucketCount)
        // Per bucket and level, at `bucket * levelCount + level`.
        var bucketCounts = [Int](repeating: 0, count: bucketCount * levelCount)
        var labelCounts: [Int64: Int] = [:]
        let statement = try connection.prepare(
            "SELECT created_at, level\(kept == nil ? ", label_id" : "") FROM (\(rows.sql))")
        try statement.bind(rows.arguments)
        let lastBucket = Double(bucketCount - 1)
        while try statement.step() {
            let position = width > 0 ? (statement.double(at: 0) - start) / width : 0
            // Clamped: the last bucket holds the newest message (position == bucketCount), and
            // a row outside the interval (a store whose blocks another tool changed) still
            // counts somewhere, so the buckets always add up to the total.
            let bucket = position.isNaN ? 0 : Int(min(max(position, 0), lastBucket))
            bucketCounts[bucket * levelCount + levelIndex(statement.int64(at: 1))] += 1
            if kept == nil { labelCounts[statement.int64(at: 2), default: 0] += 1 }
        }

        var histogram: [MessageSummary.Bucket] = []
        histogram.reserveCapacity(bucketCount)
        var levels = MessageSummary.LevelCounts()
        for bucket in 0..<bucketCount {
            var counts = MessageSummary.LevelCounts()
            for level in LogStore.Level.allCases {
                counts[level] = bucketCounts[bucket * levelCount + Int(level.rawValue)]
                levels[level] += counts[level]
            }
            let bucketEnd = bucket == bucketCount - 1 ? end : start + Double(bucket + 1) * width
            histogram.append(MessageSummary.Bucket(
                start: Date(timeIntervalSince1970: start + Double(bucket) * width),
                end: Date(timeIntervalSince1970: bucketEnd), levels: counts))
        }
        if let kept {
            levels = kept.levels
            labelCounts = kept.labels
        }
        let names = try LabelNames(connection: connection)
        let labels = labelCounts.filter { $0.value > 0 }
            .map { MessageSummary.LabelCount(label: names.name(for: $0.key), count: $0.value) }
            .sorted { ($0.count, $1.label) > ($1.count, $0.label) }
        return MessageSummary(
            interval: DateInterval(start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end)),
            total: levels.total, levels: levels, labels: labels, histogram: histogram)
    }

    /// No match: zero counts; the buckets of the query's window when it gives both ends,
    /// otherwise none.
    private static func empty(_ query: MessageQuery, bucketCount: Int) -> MessageSummary {
        var interval: DateInterval?
        var histogram: [MessageSummary.Bucket] = []
        if let since = query.since, let until = query.until, since <= until {
            interval = DateInterval(start: since, end: until)
            let width = until.timeIntervalSince(since) / Double(bucketCount)
            histogram = (0..<bucketCount).map { bucket in
                MessageSummary.Bucket(
                    start: since.addingTimeInterval(Double(bucket) * width),
                    end: bucket == bucketCount - 1 ? until : since.addingTimeInterval(Double(bucket + 1) * width),
                    levels: MessageSummary.LevelCounts())
            }
        }
        return MessageSummary(
            interval: interval, total: 0, levels: MessageSummary.LevelCounts(), labels: [], histogram: histogram)
    }

    /// A stored level as an index into the counts; values another tool may have written
    /// outside 0...6 count as critical, as ``MessageRows`` reads them.
    private static func levelIndex(_ level: Int64) -> Int {
        level >= 0 && level < Int64(levelCount) ? Int(level) : Int(LogStore.Level.critical.rawValue)
    }

    // MARK: Kept counts

    /// Totals per level and per label from `message_counts`, when the query filters by
    /// levels, labels and sessions only (what those rows are kept per); `nil` otherwise.
    private static func keptCounts(
        _ query: MessageQuery, connection: Connection
    ) throws -> (levels: MessageSummary.LevelCounts, labels: [Int64: Int])? {
        // Compared with a default query rather than field by field, so a filter added to
        // `MessageQuery` later takes the scan until someone decides it may not.
        var rest = query
        rest.levels = nil
        rest.labels = []
        rest.sessions = []
        rest.order = MessageQuery().order
        rest.limit = MessageQuery().limit
        rest.cursor = nil
        guard rest == MessageQuery() else { return nil }

        var conditions: [String] = []
        if !query.labels.isEmpty {
            let ids = try LabelNames(connection: connection).ids(for: query.labels)
            conditions.append("label_id IN (\(ids.map(String.init).joined(separator: ",")))")
        }
        if !query.sessions.isEmpty {
            let ids = try SessionIdentifiers(connection: connection).rowIDs(for: query.sessions)
            conditions.append("session_id IN (\(ids.map(String.init).joined(separator: ",")))")
        }
        if let levels = query.levels {
            conditions.append("level BETWEEN \(levels.lowerBound.rawValue) AND \(levels.upperBound.rawValue)")
        }
        let statement = try connection.prepare(
            MessageCounts.perLabelAndLevelSQL
                + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                + " GROUP BY label_id, level")
        var levels = MessageSummary.LevelCounts()
        var labels: [Int64: Int] = [:]
        while try statement.step() {
            let count = statement.int(at: 2)
            let level = LogStore.Level(rawValue: Int16(levelIndex(statement.int64(at: 1)))) ?? .critical
            levels[level] += count
            labels[statement.int64(at: 0), default: 0] += count
        }
        return (levels, labels)
    }

    // MARK: The interval's ends

    private struct Block {
        var firstID: Int64
        var lastID: Int64
        var minCreatedAt: Double
        var maxCreatedAt: Double
    }

    /// The oldest and newest matching message's `created_at`; `nil` when nothing matches.
    ///
    /// Every message lies in a block whose recorded times bound its own (they stay bounds after
    /// deletions, only looser), so once the next block by `min_created_at` starts at or after
    /// the oldest match found, no older match is left.
    private static func matchingBounds(
        _ rows: (sql: String, arguments: [DatabaseValue]), query: MessageQuery, connection: Connection
    ) throws -> ClosedRange<Double>? {
        let blocks = try candidateBlocks(query, connection: connection)
        let inBlock = "FROM (\(rows.sql)) WHERE id BETWEEN ? AND ?"
        func walk(_ blocks: [Block], edge: String, isBetter: (Double, Double) -> Bool, reaches: (Block, Double) -> Bool)
            throws -> (value: Double?, settled: Bool)
        {
            var best: Double?
            for (visited, block) in blocks.enumerated() {
                if let best, !reaches(block, best) { return (best, true) }
                if visited == blockWalkLimit { return (nil, false) }
                let value = try connection.real(
                    "SELECT \(edge)(created_at) \(inBlock)",
                    rows.arguments + [.integer(block.firstID), .integer(block.lastID)])
                if let value, best.map({ isBetter(value, $0) }) ?? true { best = value }
            }
            return (best, true)
        }
        let oldest = try walk(
            blocks.sorted { $0.minCreatedAt < $1.minCreatedAt }, edge: "min", isBetter: <,
            reaches: { block, best in block.minCreatedAt < best })
        let newest = try walk(
            blocks.sorted { $0.maxCreatedAt > $1.maxCreatedAt }, edge: "max", isBetter: >,
            reaches: { block, best in block.maxCreatedAt > best })
        if oldest.settled && newest.settled {
            guard let lower = oldest.value, let upper = newest.value else { return nil }
            return lower...upper
        }
        let statement = try connection.prepare("SELECT min(created_at), max(created_at) FROM (\(rows.sql))")
        try statement.bind(rows.arguments)
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        return statement.double(at: 0)...statement.double(at: 1)
    }

    /// The blocks that can hold the query's messages: of its sessions, overlapping its window.
    private static func candidateBlocks(_ query: MessageQuery, connection: Connection) throws -> [Block] {
        let sessionIDs = query.sessions.isEmpty
            ? nil : try SessionIdentifiers(connection: connection).rowIDs(for: query.sessions)
        let (conditions, arguments) = MessageQuerySQL.sessionAndTimeConditions(
            query, sessionIDs: sessionIDs, sinceColumn: "max_created_at", untilColumn: "min_created_at")
        let statement = try connection.prepare(
            MessageBlocks.rangesSQL
                + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")))
        try statement.bind(arguments)
        var blocks: [Block] = []
        while try statement.step() {
            blocks.append(Block(
                firstID: statement.int64(at: 0), lastID: statement.int64(at: 1),
                minCreatedAt: statement.double(at: 2), maxCreatedAt: statement.double(at: 3)))
        }
        return blocks
    }
}
