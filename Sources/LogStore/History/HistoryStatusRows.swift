import Foundation

/// The SQL behind ``LogStore/historyStatus()``: authors, their distance from the end, the
/// history's size and its cleanup state, read in one snapshot.
enum HistoryStatusRows {
    /// The status, or ``HistoryStatus/empty`` for a schema older than the history (a store
    /// opened read-only, so never migrated). Run on a reader.
    static func status(on connection: Connection) throws -> HistoryStatus {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithHistory else { return .empty }
        // One read transaction: a commit between two statements would make the counts disagree.
        return try connection.transaction(.deferred) { try read(connection) }
    }

    private static func read(_ connection: Connection) throws -> HistoryStatus {
        let rows = try HistoryAuthors.all(on: connection)
        let gaps = try gapRows(connection)
        var authors: [HistoryStatus.Author] = []
        for row in rows {
            let behind = try self.behind(row, on: connection)
            authors.append(HistoryStatus.Author(
                name: row.name, kind: row.isBatch ? .batch : .required, cursor: row.cursor,
                behindChanges: behind.changes, behindTransactions: behind.transactions,
                registered: row.registered, opened: row.opened, lastMerge: row.lastMerge, merges: row.merges, retired: row.retired,
                gapRows: gaps[row.id] ?? [:], asksForRetentionGuard: row.guardsRetention))
        }
        let size = try connection.prepare(HistoryTables.sizeSQL)
        _ = try size.step()
        let changeCount = size.int(at: 0)
        let firstSequence = size.isNull(at: 1) ? nil : size.int64(at: 1)
        let byteCount = size.int64(at: 2) + Int64(changeCount) * HistoryStatus.rowOverhead
        let lastSequence = try connection.integer(HistoryTables.lastSequenceSQL)
        let state = try connection.prepare(HistoryTables.cleanupStateSQL)
        var lastCleanup: Date?
        var cleanedThrough: Int64 = 0
        if try state.step() {
            lastCleanup = state.isNull(at: 0) ? nil : Date(timeIntervalSince1970: state.double(at: 0))
            cleanedThrough = state.int64(at: 1)
        }
        // The rule the cleaners follow, with the registered authors as the required set: the
        // configuration's `allAuthors` is a process's, not the store's.
        let required = Set(rows.filter { !$0.isBatch && $0.retired == nil }.map(\.name))
        let limit = rows.isEmpty ? nil : try HistoryAuthors.cleanupLimit(required: required, on: connection)
        let cleanable = try limit.map { limit in
            Int(try connection.integer(HistoryTables.countThroughSQL, [.integer(limit)]) ?? 0)
        } ?? 0
        return HistoryStatus(
            authors: authors, changeCount: changeCount, byteCount: byteCount, firstSequence: firstSequence,
            lastSequence: lastSequence, lastCleanup: lastCleanup, cleanedThrough: cleanedThrough,
            cleanupLimit: limit, cleanableChangeCount: cleanable)
    }

    /// The changes after `author`'s cursor by other authors, and their transactions. `seq` is
    /// the key, so this reads only the rows past the cursor.
    private static func behind(_ author: HistoryAuthors.Row, on connection: Connection) throws -> (changes: Int, transactions: Int) {
        let statement = try connection.cachedStatement(HistoryTables.othersChangesAfterSQL)
        statement.bind(author.cursor, at: 1)
        statement.bind(author.id, at: 2)
        defer { statement.reset() }
        _ = try statement.step()
        return (statement.int(at: 0), statement.int(at: 1))
    }

    /// `history_gaps` by author id, then entity; rows of an entity this version does not know
    /// (a newer library wrote them) are left out.
    private static func gapRows(_ connection: Connection) throws -> [Int64: [HistoryEntity: Int]] {
        let statement = try connection.prepare(HistoryTables.openGapsSQL)
        var gaps: [Int64: [HistoryEntity: Int]] = [:]
        while try statement.step() {
            guard let entity = HistoryEntity(rawValue: statement.int(at: 1)) else { continue }
            gaps[statement.int64(at: 0), default: [:]][entity, default: 0] += statement.int(at: 2)
        }
        return gaps
    }
}
