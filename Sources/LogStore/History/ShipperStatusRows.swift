import Foundation

/// Reads the `shippers` table into ``ShipperStatus`` values.
enum ShipperStatusRows {
    /// Every shipper of the store, by author name; none on a schema before the table.
    static func all(on connection: Connection, at now: Date = Date()) throws -> [ShipperStatus] {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithShippers else { return [] }
        let statement = try connection.prepare(Shippers.allSQL)
        var rows: [(status: ShipperStatus, cursor: Int64)] = []
        while try statement.step() {
            let date = { (index: Int32) in
                statement.isNull(at: index) ? nil : Date(timeIntervalSince1970: statement.double(at: index))
            }
            let backfill = max(0, statement.int64(at: 3) - statement.int64(at: 2) + 1)
                + max(0, statement.int64(at: 5) - statement.int64(at: 4) + 1)
            rows.append((ShipperStatus(
                author: statement.string(at: 17), destination: statement.string(at: 0),
                started: Date(timeIntervalSince1970: statement.double(at: 1)),
                sentRows: statement.int(at: 6), sentRequests: statement.int(at: 7), sentBytes: statement.int64(at: 8),
                retries: statement.int(at: 9), failures: statement.int(at: 10), setAsideRows: statement.int(at: 11),
                gapRows: statement.int(at: 12), lastSent: date(13), lastError: statement.optionalString(at: 14),
                lastErrorDate: date(15), backfillRows: backfill, behindChanges: 0, lag: nil), statement.int64(at: 18)))
        }
        statement.reset()
        return try rows.map { row in
            var status = row.status
            status.behindChanges = Int(try connection.integer(Shippers.changesAfterSQL, [.integer(row.cursor)]) ?? 0)
            if let oldest = try connection.real(Shippers.oldestUnconsumedSQL, [.integer(row.cursor)]) {
                status.lag = max(0, now.timeIntervalSince1970 - oldest)
            }
            return status
        }
    }

    /// What the backfill of `authorID` has left: the ids of messages and of tasks, each nil when done.
    static func backfill(
        _ authorID: Int64, on connection: Connection
    ) throws -> (messages: ClosedRange<Int64>?, tasks: ClosedRange<Int64>?) {
        let statement = try connection.prepare(Shippers.backfillSQL)
        statement.bind(authorID, at: 1)
        guard try statement.step() else { return (nil, nil) }
        let (messageNext, messageThrough) = (statement.int64(at: 0), statement.int64(at: 1))
        let (taskNext, taskThrough) = (statement.int64(at: 2), statement.int64(at: 3))
        return (
            messageNext <= messageThrough ? messageNext...messageThrough : nil,
            taskNext <= taskThrough ? taskNext...taskThrough : nil)
    }

    /// About how many rows the backfill of `authorID` has left.
    static func backfillRows(_ authorID: Int64, on connection: Connection) throws -> Int64 {
        let left = try backfill(authorID, on: connection)
        return Int64(left.messages?.count ?? 0) + Int64(left.tasks?.count ?? 0)
    }
}
