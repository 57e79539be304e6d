import Foundation

extension Sweeper {
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
                Messages.countOlderInRangeSQL,
                [.integer(range.lowerBound), .integer(range.upperBound), time]) ?? 0
        }
        let tasks = try connection.integer(Tasks.countOlderSQL, [time]) ?? 0
        return (authors, Int(messages), Int(tasks))
    }
}
