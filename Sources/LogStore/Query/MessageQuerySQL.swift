import Foundation

/// Turns a ``MessageQuery`` into SQL on `messages` alone, shaped for its indexes.
///
/// - Label and session names resolve to row ids first (small tables), so the planner sees
///   integer filters on one table.
/// - Time and session filters are narrowed to an id range from `message_blocks`.
/// - A page over labels or a level range runs index walks in id order and merges them
///   (`UNION ALL … ORDER BY id LIMIT n`): without that, SQLite collects and sorts every match
///   before returning the newest 100 (20 ms vs 0.3 ms on 1M rows). With labels and a level
///   range of warning and up, it walks whichever index `message_counts` says reaches `limit`
///   matches sooner: each label's entries (`messages_by_label`), or each level's
///   (`messages_by_level`).
struct MessageQuerySQL {
    var sql: String
    var arguments: [DatabaseValue]
    /// Counts every match: the filters without order, limit or cursor.
    var countSQL: String
    var countArguments: [DatabaseValue]
    /// Every matching row's `id, created_at, level, label_id`, in no particular order: what
    /// aggregates over arbitrary filters (``LogStore/summary(_:buckets:)``) group.
    var matchingSQL: String
    var matchingArguments: [DatabaseValue]
    /// Every filter as conditions on `messages` columns, without order, limit or cursor: what
    /// the full-text search path (``MessageSearchSQL``) adds to its index lookups.
    var conditions: [String]
    var conditionArguments: [DatabaseValue]
    /// The ids the time and session filters narrowed the query to.
    var idRange: ClosedRange<Int64>?

    /// Qualified, so the search path can join the full-text index (whose columns are also
    /// named `text` and `metadata`).
    static let columns = """
        messages.id, messages.created_at, messages.level, messages.label_id, messages.text, messages.metadata, \
        messages.file, messages.function, messages.line, messages.thread_id, messages.session_id
        """

    /// Above this many index walks, one plain query is cheaper than the merge.
    static let maximumArms = 64

    /// Resolves the query's names and id range against `connection` and builds its SQL; `nil`
    /// when the filters can match nothing.
    static func resolving(_ query: MessageQuery, connection: Connection) throws -> MessageQuerySQL? {
        if let filter = query.metadata.first(where: { !$0.isExpressible }) {
            throw LogStoreError.invalidArgument(
                "the metadata key path \(filter.path) cannot be looked up: it is empty, or a key holds \" or \\")
        }
        guard let filters = try ResolvedFilters(query, connection: connection) else { return nil }
        return MessageQuerySQL(query, filters)
    }

    /// A query's names resolved to row ids, and its time window to an id range.
    struct ResolvedFilters {
        var labelIDs: [Int64]?
        var excludedLabelIDs: [Int64] = []
        var sessionIDs: [Int64]?
        var idRange: ClosedRange<Int64>?
        var statistics: LevelStatistics?
        var taskRowID: Int64?
        /// Stores before network tasks (read-only, unmigrated) have no technical messages.
        var hasTaskMessages = true

        /// `nil` when the filters can match nothing.
        init?(_ query: MessageQuery, connection: Connection) throws {
            if !query.labels.isEmpty || !query.excludedLabels.isEmpty {
                let names = try LabelNames(connection: connection)
                if !query.labels.isEmpty {
                    labelIDs = names.ids(for: query.labels)
                    if labelIDs?.isEmpty == true { return nil }
                }
                excludedLabelIDs = names.ids(for: query.excludedLabels)
            }
            if !query.sessions.isEmpty {
                sessionIDs = try SessionIdentifiers(connection: connection).rowIDs(for: query.sessions)
                if sessionIDs?.isEmpty == true { return nil }
            }
            if sessionIDs != nil || query.since != nil || query.until != nil {
                guard let range = try MessageQuerySQL.blockRange(query, sessionIDs: sessionIDs, connection: connection)
                else { return nil }
                idRange = range
            }
            hasTaskMessages = try Migrations.currentVersion(connection) >= Migrations.firstVersionWithTasks
            if let taskID = query.taskID {
                guard hasTaskMessages,
                    let rowID = try connection.integer(Tasks.idByUUIDSQL, [.text(taskID.uuidString)])
                else { return nil }
                taskRowID = rowID
            }
            if let labelIDs, let levels = query.levels, levels.lowerBound >= .warning, !MessageQuerySQL.hasRowFilters(query) {
                statistics = try LevelStatistics(
                    connection: connection, labelIDs: labelIDs, levels: levels, sessionIDs: sessionIDs)
            }
        }

        init(labelIDs: [Int64]?, sessionIDs: [Int64]?, idRange: ClosedRange<Int64>?) {
            self.labelIDs = labelIDs
            self.sessionIDs = sessionIDs
            self.idRange = idRange
        }
    }

    /// Whether the query filters on more than `message_counts` can answer (session, label and
    /// level): such counts read the rows.
    static func hasRowFilters(_ query: MessageQuery) -> Bool {
        !query.excludedLabels.isEmpty || !query.files.isEmpty || !query.functions.isEmpty || !query.threadIDs.isEmpty
            || !query.metadata.isEmpty || query.taskID != nil || !(query.text?.isEmpty ?? true)
    }

    /// The ids that can hold messages of these sessions in this time window, from the blocks
    /// that overlap them; `nil` when none do.
    fileprivate static func blockRange(
        _ query: MessageQuery, sessionIDs: [Int64]?, connection: Connection
    ) throws -> ClosedRange<Int64>? {
        let (conditions, arguments) = sessionAndTimeConditions(
            query, sessionIDs: sessionIDs, sinceColumn: "max_created_at", untilColumn: "min_created_at")
        let statement = try connection.prepare(
            MessageBlocks.idRangeWhereSQL + conditions.joined(separator: " AND "))
        try statement.bind(arguments)
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        let lower = statement.int64(at: 0)
        let upper = statement.int64(at: 1)
        return lower <= upper ? lower...upper : nil
    }

    init(_ query: MessageQuery, _ resolved: ResolvedFilters) {
        let labelIDs = resolved.labelIDs
        let sessionIDs = resolved.sessionIDs
        let idRange = resolved.idRange
        self.idRange = idRange
        let statistics = resolved.statistics
        let hasTaskMessages = resolved.hasTaskMessages
        var filters: [String] = []
        var filterArguments: [DatabaseValue] = []
        // One rule for pages and both counts: `message_counts` holds logged messages only, so
        // the rows a page returns must be those too unless the query asks for task messages.
        if let taskRowID = resolved.taskRowID {
            filters.append("task_id = \(taskRowID)")
        } else if hasTaskMessages && !query.includesTaskMessages {
            filters.append("task_id IS NULL")
        }
        let (rowFilters, rowArguments) = Self.rowConditions(query, excludedLabelIDs: resolved.excludedLabelIDs)
        filters += rowFilters
        filterArguments += rowArguments
        if let idRange {
            filters.append("id BETWEEN \(idRange.lowerBound) AND \(idRange.upperBound)")
        }
        let (window, windowArguments) = Self.sessionAndTimeConditions(
            query, sessionIDs: sessionIDs, sinceColumn: "created_at", untilColumn: "created_at")
        filters += window
        filterArguments += windowArguments
        let levels = query.levels ?? (.trace ... .critical)
        let isAllLevels = levels == .trace ... .critical

        var labelCondition: [String] = []
        if let labelIDs {
            labelCondition.append("label_id IN (\(labelIDs.map(String.init).joined(separator: ",")))")
        }
        if query.since == nil && query.until == nil && resolved.taskRowID == nil && rowFilters.isEmpty {
            // Sessions, labels and levels only: `message_counts` has the answer in a few rows.
            var conditions = labelCondition
            if let sessionIDs {
                conditions.append("session_id IN (\(sessionIDs.map(String.init).joined(separator: ",")))")
            }
            if !isAllLevels {
                conditions.append("level BETWEEN \(levels.lowerBound.rawValue) AND \(levels.upperBound.rawValue)")
            }
            countSQL = MessageCounts.totalSQL + Self.whereClause(conditions)
            if hasTaskMessages && query.includesTaskMessages {
                // Technical messages are not in `message_counts`: count them through their
                // partial index (one row per task).
                countSQL = "SELECT (\(countSQL)) + (SELECT count(*) FROM messages"
                    + Self.whereClause(["task_id IS NOT NULL"] + conditions) + ")"
            }
            countArguments = []
        } else {
            // A time window: count the rows, with plain conditions the indexes cover.
            countSQL = Messages.countSQL
                + Self.whereClause(filters + labelCondition + Self.levelConditions(levels))
            countArguments = filterArguments
        }

        conditions = filters + labelCondition + Self.levelConditions(levels)
        conditionArguments = filterArguments
        matchingSQL = Messages.summarySQL + Self.whereClause(conditions)
        matchingArguments = filterArguments

        let newestFirst = query.order != .oldestFirst
        var pageFilters = filters
        var pageArguments = filterArguments
        if let cursor = query.cursor {
            pageFilters.append(newestFirst ? "id < ?" : "id > ?")
            pageArguments.append(.integer(cursor.lastID))
        }
        let order = newestFirst ? " ORDER BY id DESC" : " ORDER BY id ASC"
        // One row more than a page: whether it comes back tells if another page follows.
        let limit = Int64(max(1, query.limit)) + 1

        // One arm per index walk. A unary `+` keeps a term from choosing the index, so each arm
        // walks the index it was planned for.
        var arms: [[String]] = []
        let indexed = LogStore.Level.warning.rawValue
        if let labelIDs {
            if let statistics, statistics.prefersLevelWalk {
                let labels = "+label_id IN (\(labelIDs.map(String.init).joined(separator: ",")))"
                for level in levels.lowerBound.rawValue...levels.upperBound.rawValue {
                    arms.append(["level = \(level)", "level >= \(indexed)", labels])
                }
            } else {
                let levelTerms = Self.levelConditions(levels).map { "+" + $0 }
                for label in labelIDs where statistics?.hasMatches(label: label) ?? true {
                    arms.append(["label_id = \(label)"] + levelTerms)
                }
                if arms.isEmpty { arms.append(["0"]) }
            }
        } else if !isAllLevels {
            if levels.lowerBound.rawValue < indexed {
                let upper = min(levels.upperBound.rawValue, indexed - 1)
                arms.append(["+level BETWEEN \(levels.lowerBound.rawValue) AND \(upper)"])
            }
            if levels.upperBound.rawValue >= indexed {
                for level in max(levels.lowerBound.rawValue, indexed)...levels.upperBound.rawValue {
                    arms.append(["level = \(level)", "level >= \(indexed)"])
                }
            }
        }

        if arms.count == 1, let arm = arms.first {
            sql = "SELECT \(Self.columns) FROM messages" + Self.whereClause(pageFilters + arm) + order + " LIMIT ?"
            arguments = pageArguments + [.integer(limit)]
        } else if arms.isEmpty || arms.count > Self.maximumArms {
            var conditions = pageFilters
            if let labelIDs {
                conditions.append("label_id IN (\(labelIDs.map(String.init).joined(separator: ",")))")
            }
            conditions += Self.levelConditions(levels)
            sql = "SELECT \(Self.columns) FROM messages" + Self.whereClause(conditions) + order + " LIMIT ?"
            arguments = pageArguments + [.integer(limit)]
        } else {
            let parts = arms.map { arm in
                "SELECT * FROM (SELECT \(Self.columns) FROM messages"
                    + Self.whereClause(pageFilters + arm) + order + " LIMIT \(limit))"
            }
            sql = parts.joined(separator: " UNION ALL ") + order + " LIMIT \(limit)"
            arguments = Array(repeating: pageArguments, count: arms.count).flatMap { $0 }
        }
    }

    /// The filters that only the rows can answer: excluded labels, files, functions, threads and
    /// metadata (exact, with SQLite's JSON functions: see ``MetadataFilter``). Text search is
    /// not among them: ``MessageSearchSQL`` answers it from the index.
    static func rowConditions(
        _ query: MessageQuery, excludedLabelIDs: [Int64]
    ) -> (conditions: [String], arguments: [DatabaseValue]) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        func anyOf(_ column: String, _ values: [DatabaseValue]) {
            guard !values.isEmpty else { return }
            conditions.append("\(column) IN (\(Array(repeating: "?", count: values.count).joined(separator: ",")))")
            arguments += values
        }
        if !excludedLabelIDs.isEmpty {
            conditions.append("label_id NOT IN (\(excludedLabelIDs.map(String.init).joined(separator: ",")))")
        }
        anyOf("file", query.files.map(DatabaseValue.text))
        anyOf("function", query.functions.map(DatabaseValue.text))
        anyOf("thread_id", query.threadIDs.map { .integer(Int64($0)) })
        for filter in query.metadata {
            // `json_valid` first: metadata another tool wrote may not be JSON, and the other JSON
            // functions fail the whole query on such a row.
            if let value = filter.value {
                conditions.append("""
                    json_valid(messages.metadata) AND json_type(messages.metadata, ?) IN ('text', 'integer', 'real') \
                    AND CAST(json_extract(messages.metadata, ?) AS TEXT) = ?
                    """)
                arguments += [.text(filter.jsonPath), .text(filter.jsonPath), .text(value)]
            } else {
                conditions.append("json_valid(messages.metadata) AND json_type(messages.metadata, ?) IS NOT NULL")
                arguments.append(.text(filter.jsonPath))
            }
        }
        return (conditions, arguments)
    }

    /// The session and time filters of `query` on a table whose rows span times from
    /// `sinceColumn` to `untilColumn` (one `created_at` for messages, a range for blocks): a
    /// row can match when it ends at or after `since` and starts before `until`.
    static func sessionAndTimeConditions(
        _ query: MessageQuery, sessionIDs: [Int64]?, sinceColumn: String, untilColumn: String
    ) -> (conditions: [String], arguments: [DatabaseValue]) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let sessionIDs {
            conditions.append("session_id IN (\(sessionIDs.map(String.init).joined(separator: ",")))")
        }
        if let since = query.since {
            conditions.append("\(sinceColumn) >= ?")
            arguments.append(.real(since.timeIntervalSince1970))
        }
        if let until = query.until {
            conditions.append("\(untilColumn) < ?")
            arguments.append(.real(until.timeIntervalSince1970))
        }
        return (conditions, arguments)
    }

    /// Conditions for a level range, repeating the partial index's own condition so the
    /// planner can use `messages_by_level` (it matches index conditions by their terms).
    private static func levelConditions(_ levels: ClosedRange<LogStore.Level>) -> [String] {
        var conditions: [String] = []
        if levels.lowerBound > .trace {
            conditions.append("level >= \(levels.lowerBound.rawValue)")
        }
        if levels.lowerBound > .warning {
            conditions.append("level >= \(LogStore.Level.warning.rawValue)")
        }
        if levels.upperBound < .critical {
            conditions.append("level <= \(levels.upperBound.rawValue)")
        }
        return conditions
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }
}
