import Foundation

/// Reading `tasks` rows into summaries and details.
enum TaskRows {
    /// The summary's columns on a database of schema `version`: before schema 7 every task was
    /// outbound, and a store opened read-only keeps its older schema.
    static func columns(_ version: Int) -> String {
        """
        t.id, t.uuid, s.uuid, l.name, t.created_at, t.task_type, t.state, t.method, t.url, t.host, t.status_code,
        t.error_code, t.error_domain, t.error_description, t.content_type, t.duration, t.request_body_size,
        t.response_body_size, t.progress_completed, t.progress_total, \
        \(version >= Migrations.firstVersionWithDirection ? "t.direction" : "0")
        """
    }

    static func page(_ query: TaskQuery, connection: Connection) throws -> TaskPage {
        let version = try Migrations.currentVersion(connection)
        guard version >= Migrations.firstVersionWithTasks,
            let filters = try TaskQuerySQL.resolving(query, connection: connection, schemaVersion: version)
        else { return TaskPage(tasks: [], nextCursor: nil) }
        let newestFirst = query.order == .newestFirst
        var extra: [String] = []
        var extraArguments: [DatabaseValue] = []
        if let cursor = query.cursor {
            extra.append(newestFirst ? "t.id < ?" : "t.id > ?")
            extraArguments.append(.integer(cursor.lastID))
        }
        let pageSize = max(1, query.limit)
        var tasks: [NetworkTaskSummary] = try TaskURLIndex.withSearchTable(filters, connection: connection) { table in
            let sql = "SELECT \(columns(version)) FROM tasks t JOIN sessions s ON s.id = t.session_id JOIN labels l ON l.id = t.label_id"
                + filters.whereClause(searchTable: table, extra: extra)
                + (newestFirst ? " ORDER BY t.id DESC" : " ORDER BY t.id ASC") + " LIMIT \(pageSize + 1)"
            let statement = try connection.prepare(sql)
            try statement.bind(filters.whereArguments(extra: extraArguments))
            return try TaskURLIndex.rejectingInvalidSearch(filters) {
                var tasks: [NetworkTaskSummary] = []
                while try statement.step() {
                    tasks.append(summary(statement))
                }
                return tasks
            }
        }
        let hasNext = tasks.count > pageSize
        if hasNext { tasks.removeLast(tasks.count - pageSize) }
        return TaskPage(tasks: tasks, nextCursor: hasNext ? tasks.last.map { .init(lastID: $0.rowID) } : nil)
    }

    /// How many tasks match `query`'s filters; its order, limit and cursor are ignored.
    static func count(_ query: TaskQuery, connection: Connection) throws -> Int {
        let version = try Migrations.currentVersion(connection)
        guard version >= Migrations.firstVersionWithTasks,
            let filters = try TaskQuerySQL.resolving(query, connection: connection, schemaVersion: version)
        else { return 0 }
        return try TaskURLIndex.withSearchTable(filters, connection: connection) { table in
            let statement = try connection.prepare("SELECT count(*) FROM tasks t" + filters.whereClause(searchTable: table))
            try statement.bind(filters.whereArguments())
            return try TaskURLIndex.rejectingInvalidSearch(filters) {
                try statement.step() ? statement.int(at: 0) : 0
            }
        }
    }

    /// Runs `body` with SQL selecting every column of the `tasks` rows `query`'s filters match
    /// (`SELECT t.* …`, oldest first; its order, limit and cursor are ignored) and its arguments;
    /// `body` is not called when nothing can match.
    static func withMatchingRowsSQL(
        _ query: TaskQuery, connection: Connection, _ body: (String, [DatabaseValue]) throws -> Void
    ) throws {
        let version = try Migrations.currentVersion(connection)
        guard version >= Migrations.firstVersionWithTasks,
            let filters = try TaskQuerySQL.resolving(query, connection: connection, schemaVersion: version)
        else { return }
        try TaskURLIndex.withSearchTable(filters, connection: connection) { table in
            try TaskURLIndex.rejectingInvalidSearch(filters) {
                try body("SELECT t.* FROM tasks t" + filters.whereClause(searchTable: table) + " ORDER BY t.id", filters.whereArguments())
            }
        }
    }

    static func details(_ id: UUID, connection: Connection) throws -> NetworkTaskDetails? {
        let version = try Migrations.currentVersion(connection)
        guard version >= Migrations.firstVersionWithTasks else { return nil }
        let statement = try connection.prepare("""
            SELECT \(columns(version)), rq.json, rs.json, lower(hex(bq.key)), lower(hex(bs.key)), t.body_flags, t.task_description,
                   t.decoding_error, t.metadata
            FROM tasks t JOIN sessions s ON s.id = t.session_id JOIN labels l ON l.id = t.label_id
            LEFT JOIN task_heads rq ON rq.id = t.request_head_id LEFT JOIN task_heads rs ON rs.id = t.response_head_id
            LEFT JOIN blobs bq ON bq.id = t.request_body_id LEFT JOIN blobs bs ON bs.id = t.response_body_id
            WHERE t.uuid = ?
            """)
        statement.bind(id.uuidString, at: 1)
        guard try statement.step() else { return nil }
        let summary = summary(statement)
        let rowID = summary.rowID
        var undecodable: [String: String] = [:]
        let request = decodeStored(NetworkRequest.self, statement.optionalString(at: 21), part: "request", into: &undecodable)
        let response = decodeStored(NetworkResponse.self, statement.optionalString(at: 22), part: "response", into: &undecodable)
        let flags = statement.int64(at: 25)
        let metadata = decodeStored([String: String].self, statement.optionalString(at: 28), part: "metadata", into: &undecodable)
        var details = NetworkTaskDetails(
            summary: summary, request: request, response: response,
            requestBodyKey: statement.isNull(at: 23) || statement.string(at: 23).isEmpty ? nil : statement.string(at: 23),
            responseBodyKey: statement.isNull(at: 24) || statement.string(at: 24).isEmpty ? nil : statement.string(at: 24),
            isRequestBodyOverLimit: flags & TaskBodyFlags.requestBodyOverLimit != 0,
            isResponseBodyOverLimit: flags & TaskBodyFlags.responseBodyOverLimit != 0,
            transactions: [], taskDescription: statement.optionalString(at: 26),
            decodingError: statement.optionalString(at: 27),
            metadata: metadata ?? [:])
        details.isRequestBodyRemoved = flags & TaskBodyFlags.requestBodyDropped != 0
        details.isResponseBodyRemoved = flags & TaskBodyFlags.responseBodyDropped != 0
        let transactions = try connection.prepare(Tasks.transactionsSQL)
        transactions.bind(rowID, at: 1)
        while try transactions.step() {
            if let transaction = decodeStored(
                NetworkTransactionMetrics.self, transactions.string(at: 1), part: "transactions[\(transactions.int(at: 0))]",
                into: &undecodable)
            {
                details.transactions.append(transaction)
            }
        }
        details.undecodableJSON = undecodable
        return details
    }

    /// Decodes a stored JSON column; text that does not decode is kept in `undecodable` under
    /// `part` (see ``NetworkTaskDetails/undecodableJSON``), so one damaged part neither hides
    /// the task nor vanishes without a trace.
    private static func decodeStored<T: Decodable>(
        _ type: T.Type, _ json: String?, part: String, into undecodable: inout [String: String]
    ) -> T? {
        guard let json else { return nil }
        do {
            return try StoreJSON.decoder.decode(type, from: Data(json.utf8))
        } catch {
            undecodable[part] = json
            return nil
        }
    }

    static func summary(_ statement: Statement) -> NetworkTaskSummary {
        var error: NetworkError?
        if !statement.isNull(at: 11) {
            error = NetworkError(
                code: statement.int(at: 11), domain: statement.optionalString(at: 12) ?? "",
                description: statement.optionalString(at: 13) ?? "")
        }
        var progress: NetworkProgress?
        if !statement.isNull(at: 18) {
            progress = NetworkProgress(completed: statement.int64(at: 18), total: statement.int64(at: 19))
        }
        return NetworkTaskSummary(
            rowID: statement.int64(at: 0),
            id: UUID(uuidString: statement.string(at: 1)) ?? UUID(uuid: UUID.nilUUID),
            sessionID: UUID(uuidString: statement.string(at: 2)) ?? UUID(uuid: UUID.nilUUID),
            label: statement.string(at: 3),
            createdAt: Date(timeIntervalSince1970: statement.double(at: 4)),
            taskType: NetworkTaskType(rawValue: Int16(truncatingIfNeeded: statement.int64(at: 5))) ?? .data,
            state: NetworkTaskState(rawValue: Int16(truncatingIfNeeded: statement.int64(at: 6))) ?? .pending,
            method: statement.optionalString(at: 7), url: statement.optionalString(at: 8),
            host: statement.optionalString(at: 9),
            statusCode: statement.isNull(at: 10) ? nil : statement.int(at: 10), error: error,
            contentType: statement.optionalString(at: 14),
            duration: statement.isNull(at: 15) ? nil : statement.double(at: 15),
            requestBodySize: statement.int64(at: 16), responseBodySize: statement.int64(at: 17), progress: progress,
            direction: NetworkTaskDirection(storedValue: statement.int64(at: 20)))
    }
}

extension UUID {
    /// The all-zero UUID, for rows whose stored id does not parse.
    static let nilUUID: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}
