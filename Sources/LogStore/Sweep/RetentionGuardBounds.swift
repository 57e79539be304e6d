/// Where the retention guard stops the age sweep, as read on one connection at one moment:
/// the lowest message and task ids a required author has not consumed. The writer's steps read
/// it again in each of their transactions
/// (``BatchWriter/deleteMessages(from:through:before:inSession:limit:rule:)``,
/// ``BatchWriter/deleteTasks(createdBefore:onlyPending:limit:rule:)``), and the sweep's progress
/// totals on a reader, so both put the same conditions.
struct RetentionGuardBounds: Sendable {
    /// Messages from this id on stay (nil: none is unconsumed).
    var message: Int64?
    /// Tasks from this id on stay, with their technical messages (nil: none is unconsumed).
    var task: Int64?

    /// The bounds when some author asks for the guard (``HistoryAuthors/retentionGuardIsAsked(on:)``),
    /// else nil: nothing old is kept.
    static func read(on connection: Connection) throws -> RetentionGuardBounds? {
        guard try HistoryAuthors.retentionGuardIsAsked(on: connection) else { return nil }
        let unconsumed = try HistoryUnconsumed.read([.message, .task], on: connection)
        return RetentionGuardBounds(message: unconsumed.lowestID(.message), task: unconsumed.lowestID(.task))
    }

    /// The condition on `messages` of those the age sweep may delete (a technical message goes
    /// with its task: it stays while its task is guarded).
    var messageCondition: (sql: String, arguments: [DatabaseValue]) {
        var sql = ""
        var arguments: [DatabaseValue] = []
        if let message {
            sql += " AND id < ?"
            arguments.append(.integer(message))
        }
        if let task {
            sql += " AND (task_id IS NULL OR task_id < ?)"
            arguments.append(.integer(task))
        }
        return (sql, arguments)
    }

    /// The condition on `tasks` of those the age sweep may delete (a task completed after it
    /// was created has its technical message inserted then: while a consumer has not seen that
    /// message, the task stays too).
    var taskCondition: (sql: String, arguments: [DatabaseValue]) {
        var sql = ""
        var arguments: [DatabaseValue] = []
        if let task {
            sql += " AND id < ?"
            arguments.append(.integer(task))
        }
        if let message {
            sql += " AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.task_id = tasks.id AND messages.id >= ?)"
            arguments.append(.integer(message))
        }
        return (sql, arguments)
    }
}
