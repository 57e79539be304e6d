import Foundation

/// `removeAll` and `removeSessions`: the sweep's deletions, in its bounded steps, so removing a
/// store's worth of rows neither grows the WAL to the store's size nor holds the writer (and
/// logging) for the whole removal.
extension Sweeper {
    /// What a removal deletes, read on the writer after the events accepted before the call
    /// are committed: rows logged later are not part of it.
    private struct RemovalPlan: Sendable {
        /// Per session row (nil: every session): the id ranges of its messages.
        var messageRanges: [(session: Int64?, ranges: [ClosedRange<Int64>])]
        var lastTaskID: Int64
        var sessions: [Int64]
    }

    /// Every message and task logged before the call, and every session but the writer's own.
    func removeAll() async throws {
        let plan = try await writer.perform { writer in
            let connection = writer.connection
            let first = try connection.integer(Messages.oldestIDSQL)
            let last = try connection.integer(Messages.newestIDSQL)
            let ranges = first.flatMap { first in last.map { [first...$0] } } ?? []
            return RemovalPlan(
                messageRanges: [(nil, ranges)],
                lastTaskID: try connection.integer(Tasks.newestIDSQL) ?? 0,
                sessions: try connection.integers(Sessions.othersSQL, [.integer(writer.sessionRowID)]))
        }
        try await remove(plan)
    }

    /// The messages and tasks of the sessions with these UUIDs, and their rows (the writer's own
    /// row stays while it is logging).
    func removeSessions(uuids: [String]) async throws {
        let plan = try await writer.perform { writer in
            let connection = writer.connection
            let placeholders = Array(repeating: "?", count: uuids.count).joined(separator: ",")
            let sessions = try connection.integers(
                "SELECT id FROM sessions WHERE uuid IN (\(placeholders))", uuids.map(DatabaseValue.text))
            return RemovalPlan(
                messageRanges: try sessions.map { session in
                    (session, try Self.messageRanges(connection, ofBlocksWhere: "session_id = ?", [.integer(session)]))
                },
                lastTaskID: try connection.integer(Tasks.newestIDSQL) ?? 0,
                sessions: sessions)
        }
        try await remove(plan)
    }

    private func remove(_ plan: RemovalPlan) async throws {
        for (session, ranges) in plan.messageRanges {
            for range in ranges {
                _ = try await deleteMessages(
                    from: range.lowerBound, through: range.upperBound, before: nil, inSession: session)
            }
        }
        // Tasks without a technical message (still pending) are left after the messages.
        let sessions: [Int64?] = plan.messageRanges.map(\.session)
        for session in sessions {
            _ = try await repeatSteps((), size: Self.tasksPerStep) { writer, _, limit in
                let step = try writer.deleteTasks(upTo: plan.lastTaskID, inSession: session, limit: limit)
                return (step.tasks < limit, step.rows)
            }
        }
        let rows = plan.sessions
        if !rows.isEmpty {
            _ = try await repeatSteps(rows[...], size: Self.sessionRowsPerStep) { writer, left, limit in
                let step = left.prefix(limit)
                try writer.deleteSessions(rowIDs: step)
                left = left.dropFirst(step.count)
                return (left.isEmpty, step.count)
            }
        }
        try await giveFreePagesBack(truncatingTheWAL: true)
    }
}
