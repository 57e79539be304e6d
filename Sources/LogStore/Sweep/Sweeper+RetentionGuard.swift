import Foundation

extension Sweeper {
    /// Where the retention guard stops the age sweep, as read on one connection at one moment:
    /// the lowest message and task ids a required author has not consumed. The writer's steps
    /// decide again in each transaction (``BatchWriter/deleteMessages(from:through:before:inSession:limit:rule:)``);
    /// this is for what a sweep tells its caller: the totals of its progress and its report.
    struct GuardBounds: Sendable {
        /// Messages from this id on stay (nil: none is unconsumed).
        var message: Int64?
        /// Tasks from this id on stay, with their technical messages (nil: none is unconsumed).
        var task: Int64?

        /// The bounds when some author asks for the guard (``HistoryAuthors/retentionGuardIsAsked(on:)``),
        /// else nil: nothing old is kept.
        static func read(on connection: Connection) throws -> GuardBounds? {
            guard try HistoryAuthors.retentionGuardIsAsked(on: connection) else { return nil }
            let unconsumed = try HistoryUnconsumed.read([.message, .task], on: connection)
            return GuardBounds(message: unconsumed.lowestID(.message), task: unconsumed.lowestID(.task))
        }

        /// The condition on `messages` of those the age sweep may delete, as its steps put it.
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

        /// The condition on `tasks` of those the age sweep may delete, as its steps put it.
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

    /// What the retention guard kept from this sweep: the authors that ask for it and the
    /// messages (technical ones aside, as ``LogStore/SweepReport/removedMessages`` counts) and
    /// tasks older than `cutoff` still in the store. Without the guard the age sweep leaves
    /// none, so what is old and left is what the guard kept (or what the size limit did not
    /// reach either). Read once the sweep's deletions are done; nothing is counted when no
    /// author asks.
    static func keptByTheGuard(
        _ connection: Connection, olderThan cutoff: Date
    ) throws -> (authors: [String], messages: Int, tasks: Int) {
        let authors = try HistoryAuthors.retentionGuardAuthorNames(on: connection)
        guard !authors.isEmpty else { return ([], 0, 0) }
        let time = DatabaseValue.real(cutoff.timeIntervalSince1970)
        // Through the blocks that hold old messages, as the age sweep finds them.
        let ranges = try messageRanges(connection, ofBlocksWhere: "min_created_at < ?", [time])
        var messages: Int64 = 0
        for range in ranges {
            messages += try connection.integer(
                "SELECT count(*) FROM messages WHERE id BETWEEN ? AND ? AND created_at < ? AND task_id IS NULL",
                [.integer(range.lowerBound), .integer(range.upperBound), time]) ?? 0
        }
        let tasks = try connection.integer("SELECT count(*) FROM tasks WHERE created_at < ?", [time]) ?? 0
        return (authors, Int(messages), Int(tasks))
    }
}
