import Foundation

/// A network task as shipped: its summary and the trace context its request carried.
struct ShippedTask: Sendable {
    var summary: NetworkTaskSummary
    /// The request's `traceparent` header, when it had one.
    var traceparent: String?
}

/// Rows the size limit deleted before the shipper sent them: one gap row per entity, keyed by
/// the shipper's cursor at the time, so a resent gap replaces itself.
struct ShippedGap: Sendable, Hashable {
    var entity: HistoryEntity
    var rows: Int
    /// The author's cursor when the gap was reported.
    var cursor: Int64
    var date: Date
}

/// What one request carries: rows read in one go, and the version they were read at.
struct ShippingRows: Sendable {
    var messages: [LogStore.Message] = []
    var tasks: [ShippedTask] = []
    var gaps: [ShippedGap] = []
    /// The history's last sequence number when the rows were read: a later read sees a later
    /// state of a task, and the destination keeps the row with the largest version.
    var version: Int64 = 0
    /// About how many bytes the rows take encoded (set when the rows are split into requests):
    /// what an encoder reserves up front.
    var estimatedBytes = 0

    var count: Int { messages.count + tasks.count + gaps.count }
    var isEmpty: Bool { count == 0 }
}

/// The rows a shipper still has to send of one batch, or of its backfill: ranges of ids, read
/// a request's worth at a time, messages before tasks.
struct ShippingWork: Sendable {
    var messages: [ClosedRange<Int64>]
    var tasks: [ClosedRange<Int64>]
    var gaps: [ShippedGap] = []

    var isEmpty: Bool { messages.isEmpty && tasks.isEmpty && gaps.isEmpty }

    /// The message ids after which nothing of the batch is left (for the backfill's progress).
    var nextMessageID: Int64 { messages.first?.lowerBound ?? Int64.max }
    /// The task ids after which nothing of the batch is left.
    var nextTaskID: Int64 { tasks.first?.lowerBound ?? Int64.max }

    /// Reads up to `limit` rows, and leaves out of the work what it covered. A range whose rows
    /// were deleted meanwhile yields nothing (what the size limit deleted comes as a gap).
    mutating func next(limit: Int, on connection: Connection) throws -> ShippingRows {
        var rows = ShippingRows()
        rows.version = try connection.integer(HistoryTables.lastSequenceSQL) ?? 0
        rows.gaps = gaps
        gaps = []
        if !messages.isEmpty {
            let reader = try MessageReader(connection: connection)
            // Ids bound the count: a live batch of a few rows reserves little, a backfill a request's worth.
            let span = messages.reduce(0) { min(limit, $0 + Int(clamping: min($1.upperBound - $1.lowerBound, Int64(limit)) + 1)) }
            rows.messages.reserveCapacity(span)
            let statement = try connection.cachedStatement(ShippingRows.messagesSQL)
            try Self.read(&messages, limit: limit, statement: statement) { statement in
                rows.messages.append(reader.message(statement))
            }
        }
        if !tasks.isEmpty && rows.count < limit {
            let statement = try connection.cachedStatement(ShippingRows.tasksSQL)
            try Self.read(&tasks, limit: limit - rows.count, statement: statement) { statement in
                rows.tasks.append(ShippedTask(
                    summary: TaskRows.summary(statement), traceparent: statement.optionalString(at: 21)))
            }
        }
        return rows
    }

    /// Steps `statement` (arguments: first, last, limit) over `ranges` until `limit` rows came,
    /// trimming the ranges to what is left.
    private static func read(
        _ ranges: inout [ClosedRange<Int64>], limit: Int, statement: Statement, row: (Statement) -> Void
    ) throws {
        var taken = 0
        while let range = ranges.first, taken < limit {
            let wanted = limit - taken
            statement.bind(range.lowerBound, at: 1)
            statement.bind(range.upperBound, at: 2)
            statement.bind(Int64(wanted), at: 3)
            defer { statement.reset() }
            var last: Int64?
            var stepped = 0
            while try statement.step() {
                last = statement.int64(at: 0)
                row(statement)
                stepped += 1
            }
            taken += stepped
            if stepped == wanted, let last, last < range.upperBound {
                ranges[0] = (last + 1)...range.upperBound
            } else {
                ranges.removeFirst()
            }
        }
    }
}

extension ShippingRows {
    /// The logged messages with ids in a range, oldest first (arguments: first, last, limit):
    /// the columns ``MessageReader`` reads. A network task's technical message is left out:
    /// the task's own row says the same (as message queries leave it out unless asked), and a
    /// destination would otherwise hold every task twice.
    static let messagesSQL = """
        SELECT \(MessageQuerySQL.columns) FROM messages WHERE id BETWEEN ? AND ? AND task_id IS NULL ORDER BY id LIMIT ?
        """

    /// The tasks with ids in a range, oldest first (arguments: first, last, limit): the
    /// summary's columns, then the request's `traceparent` header (any case).
    static let tasksSQL = """
        SELECT \(TaskRows.columns(Migrations.latestVersion)),
               (SELECT j.value FROM task_heads h, json_each(h.json, '$.headers') j
                WHERE h.id = t.request_head_id AND lower(j.key) = 'traceparent' LIMIT 1)
        FROM tasks t JOIN sessions s ON s.id = t.session_id JOIN labels l ON l.id = t.label_id
        WHERE t.id BETWEEN ? AND ? ORDER BY t.id LIMIT ?
        """
}
