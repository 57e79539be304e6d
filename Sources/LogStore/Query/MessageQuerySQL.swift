import Foundation

/// Turns a ``MessageQuery`` into one SQL statement on `messages` alone.
///
/// Label and session names are resolved to row ids first (small tables), so the planner sees
/// plain integer filters on one table and can walk `messages_by_label` or the primary key in
/// id order instead of sorting.
struct MessageQuerySQL {
    var sql: String
    var arguments: [DatabaseValue]
    /// Counts every match: the filters without order, limit or cursor.
    var countSQL: String
    var countArguments: [DatabaseValue]

    static let columns = """
        id, created_at, level, label_id, text, metadata, file, function, line, thread_id, session_id
        """

    /// Resolves the query's label and session names against `connection` and builds its SQL;
    /// `sql` is `nil` when the filters can match nothing. The name tables come back too, to
    /// name the result rows.
    static func resolving(
        _ query: MessageQuery, connection: Connection
    ) throws -> (sql: MessageQuerySQL?, labels: LabelNames, sessions: SessionIdentifiers) {
        let labels = try LabelNames(connection: connection)
        let sessions = try SessionIdentifiers(connection: connection)
        let labelIDs = query.labels.isEmpty ? nil : query.labels.compactMap { labels.id(for: $0) }
        let sessionIDs = query.sessions.isEmpty ? nil : query.sessions.compactMap { sessions.rowID(for: $0) }
        return (MessageQuerySQL(query, labelIDs: labelIDs, sessionIDs: sessionIDs), labels, sessions)
    }

    /// `nil` when the filters can match nothing (an unknown label or session).
    init?(_ query: MessageQuery, labelIDs: [Int64]?, sessionIDs: [Int64]?) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let levels = query.levels {
            if levels.lowerBound > .trace {
                conditions.append("level >= \(levels.lowerBound.rawValue)")
            }
            if levels.upperBound < .critical {
                conditions.append("level <= \(levels.upperBound.rawValue)")
            }
            // Repeating the partial index's own condition lets the planner use
            // `messages_by_level` (it matches index conditions by their terms).
            if levels.lowerBound >= .warning {
                conditions.append("level >= 4")
            }
        }
        if let labelIDs {
            guard !labelIDs.isEmpty else { return nil }
            conditions.append("label_id IN (\(labelIDs.map(String.init).joined(separator: ",")))")
        }
        if let sessionIDs {
            guard !sessionIDs.isEmpty else { return nil }
            conditions.append("session_id IN (\(sessionIDs.map(String.init).joined(separator: ",")))")
        }
        if let since = query.since {
            conditions.append("created_at >= ?")
            arguments.append(.real(since.timeIntervalSince1970))
        }
        if let until = query.until {
            conditions.append("created_at < ?")
            arguments.append(.real(until.timeIntervalSince1970))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        self.countSQL = "SELECT count(*) FROM messages" + filter
        self.countArguments = arguments

        let newestFirst = query.order == .newestFirst
        if let cursor = query.cursor {
            conditions.append(newestFirst ? "id < ?" : "id > ?")
            arguments.append(.integer(cursor.lastID))
        }
        var sql = "SELECT \(Self.columns) FROM messages"
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.joined(separator: " AND ")
        }
        sql += newestFirst ? " ORDER BY id DESC" : " ORDER BY id ASC"
        sql += " LIMIT ?"
        arguments.append(.integer(Int64(max(1, query.limit))))
        self.sql = sql
        self.arguments = arguments
    }
}
