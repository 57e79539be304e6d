import Foundation

/// A ``TaskQuery``'s filters as SQL conditions on `tasks t`, with their arguments: what a page
/// and a count share. User text only ever reaches SQLite as a bound argument.
struct TaskQuerySQL {
    /// Conditions that must all hold (empty: every task).
    var conditions: [String] = []
    var arguments: [DatabaseValue] = []
    /// The FTS5 query the URLs must match, bound in ``searchCondition(table:)``; `nil` for none.
    var matchExpression: String?
    /// Whether ``matchExpression`` is the caller's own FTS5 syntax, which FTS5 may refuse.
    var isFTS5Syntax = false

    /// The filters of `query` against `connection`'s names; `nil` when they can match nothing
    /// (a label or session the store does not have).
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a blank content type.
    static func resolving(_ query: TaskQuery, connection: Connection, schemaVersion: Int) throws -> TaskQuerySQL? {
        var sql = TaskQuerySQL()
        let directions = Set(query.directions)
        if directions.count == 1, let direction = directions.first {
            if schemaVersion >= Migrations.firstVersionWithDirection {
                // `= 1` is `tasks_by_direction`'s own condition, so inbound pages read that index.
                sql.add("t.direction = \(direction.storedValue)")
            } else if direction == .inbound {
                return nil  // an older schema's tasks are all outbound
            }
        }
        // Labels and sessions resolve to row ids first (small tables): no join on every task.
        if !query.labels.isEmpty {
            let ids = try LabelNames(connection: connection).ids(for: query.labels)
            if ids.isEmpty { return nil }
            sql.anyOf("t.label_id", ids.map { .integer($0) })
        }
        if !query.sessions.isEmpty {
            let ids = try SessionIdentifiers(connection: connection).rowIDs(for: query.sessions)
            if ids.isEmpty { return nil }
            sql.anyOf("t.session_id", ids.map { .integer($0) })
        }
        sql.anyOf("t.host", query.hosts.map { .text($0.lowercased()) })
        sql.anyOf("t.method", query.methods.map { .text($0.uppercased()) })
        sql.anyOf("t.state", query.states.map { .integer(Int64($0.rawValue)) })
        sql.addPaths(query.paths)
        if let codes = query.statusCodes {
            sql.add("t.status_code BETWEEN ? AND ?", .integer(Int64(codes.lowerBound)), .integer(Int64(codes.upperBound)))
        }
        if let isFailure = query.isFailure {
            // `status_code` is NULL without a response: coalesce keeps NOT from turning the
            // whole condition NULL (which would drop those tasks from `false` too).
            let failed = "(t.state = \(NetworkTaskState.failure.rawValue) OR t.error_code IS NOT NULL "
                + "OR coalesce(t.status_code, 0) >= 400)"
            sql.add(isFailure ? failed : "NOT " + failed)
        }
        if let durations = query.durations {
            sql.addRange("t.duration", durations)
        }
        try sql.addContentTypes(query.contentTypes)
        if let removed = query.isResponseBodyRemoved {
            sql.add("(t.body_flags & \(TaskBodyFlags.responseBodyDropped)) \(removed ? "!=" : "=") 0")
        }
        if let since = query.since {
            sql.add("t.created_at >= ?", .real(since.timeIntervalSince1970))
        }
        if let until = query.until {
            sql.add("t.created_at < ?", .real(until.timeIntervalSince1970))
        }
        if let search = query.urlText, let expression = search.matchExpression {
            sql.matchExpression = expression
            sql.isFTS5Syntax = search.syntax == .fts5
        }
        return sql
    }

    /// The `WHERE` clause of the filters and `extra` (the page's cursor), or `""`; `searchTable`
    /// names the FTS5 table the URL search reads (``TaskURLIndex``).
    func whereClause(searchTable: String, extra: [String] = []) -> String {
        var all = conditions + extra
        if matchExpression != nil {
            all.append("t.id IN (SELECT rowid FROM \(searchTable) WHERE \(searchTable) MATCH ?)")
        }
        return all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND ")
    }

    /// The arguments of ``whereClause(searchTable:extra:)`` with `extra`'s own after the filters'.
    func whereArguments(extra: [DatabaseValue] = []) -> [DatabaseValue] {
        arguments + extra + (matchExpression.map { [.text($0)] } ?? [])
    }

    // MARK: Building

    private mutating func add(_ condition: String, _ values: DatabaseValue...) {
        conditions.append(condition)
        arguments += values
    }

    private mutating func anyOf(_ column: String, _ values: [DatabaseValue]) {
        guard !values.isEmpty else { return }
        add("\(column) IN (\(Array(repeating: "?", count: values.count).joined(separator: ",")))")
        arguments += values
    }

    /// Prefixes through `GLOB` with its three special characters bracketed, so the text is
    /// matched as written (GLOB compares case-sensitively, as paths are; `LIKE` would not, and
    /// its `%` and `_` would need an `ESCAPE`). A literal prefix is what SQLite's LIKE/GLOB
    /// optimisation turns into an index range, should `path` ever get an index.
    private mutating func addPaths(_ prefixes: [String]) {
        guard !prefixes.isEmpty else { return }
        add("(" + Array(repeating: "t.path GLOB ?", count: prefixes.count).joined(separator: " OR ") + ")")
        arguments += prefixes.map { .text(Self.globEscaped($0) + "*") }
    }

    /// `text` as a GLOB pattern that matches only itself.
    static func globEscaped(_ text: String) -> String {
        var pattern = ""
        for character in text {
            switch character {
            case "*", "?", "[": pattern += "[\(character)]"
            default: pattern.append(character)
            }
        }
        return pattern
    }

    /// A range on a REAL column; infinite bounds are left out (SQLite has no infinity literal,
    /// and "up to infinity" filters nothing but NULLs, which the finite side already drops).
    private mutating func addRange(_ column: String, _ range: ClosedRange<Double>) {
        var bounded = false
        if range.lowerBound.isFinite {
            add("\(column) >= ?", .real(range.lowerBound))
            bounded = true
        }
        if range.upperBound.isFinite {
            add("\(column) <= ?", .real(range.upperBound))
            bounded = true
        }
        // `-inf ... inf` still asks for a duration.
        if !bounded { add("\(column) IS NOT NULL") }
    }

    /// The stored content type's media type: before any `;`, without surrounding spaces or tabs,
    /// lower-cased.
    private static let mediaType = """
        lower(trim(CASE WHEN instr(t.content_type, ';') > 0
                        THEN substr(t.content_type, 1, instr(t.content_type, ';') - 1)
                        ELSE t.content_type END, ' \t'))
        """

    private mutating func addContentTypes(_ types: [String]) throws {
        guard !types.isEmpty else { return }
        var exact: [String] = []
        var families: [String] = []
        for type in types {
            let media = Self.normalizedMediaType(type)
            guard !media.isEmpty else {
                throw LogStoreError.invalidArgument("an empty content type (give a media type such as application/json)")
            }
            if media.hasSuffix("/*") {
                families.append(String(media.dropLast()))
            } else {
                exact.append(media)
            }
        }
        var alternatives: [String] = []
        var values: [DatabaseValue] = []
        if !exact.isEmpty {
            alternatives.append("\(Self.mediaType) IN (\(Array(repeating: "?", count: exact.count).joined(separator: ",")))")
            values += exact.map { .text($0) }
        }
        for family in families {
            // `length` and `substr` both count characters, so any family text compares whole.
            alternatives.append("substr(\(Self.mediaType), 1, length(?)) = ?")
            values += [.text(family), .text(family)]
        }
        add("t.content_type IS NOT NULL AND (" + alternatives.joined(separator: " OR ") + ")")
        arguments += values
    }

    /// A content type as the query compares it: `Application/JSON; charset=utf-8` is
    /// `application/json`.
    static func normalizedMediaType(_ text: String) -> String {
        let media = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return media.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
