import Foundation

/// Reads the history after a cursor, as whole transactions: what a merge delivers.
enum HistoryReader {
    /// What one read found for an author.
    struct Unseen: Sendable {
        /// Other authors' transactions (and its own, when asked), in commit order.
        var transactions: [HistoryTransaction]
        /// The last seq the read covered, its own changes included: where the cursor moves
        /// once the transactions are consumed.
        var through: Int64
        /// Rows the size limit deleted before the author consumed them, per entity.
        var gaps: [HistoryEntity: Int]
        /// Whether the read stopped at its limit: more may follow at once.
        var hasMore = false
    }

    /// Up to about `limit` changes after `cursor`, never half a transaction; nil when there is
    /// nothing after it and no gap to report.
    ///
    /// - Throws: ``LogStoreError/storeInvalid(_:reason:)`` for a history row this library
    ///   could not have written (the file was changed by something else).
    static func unseen(
        after cursor: Int64, authorID: Int64, includingOwn: Bool, limit: Int, on connection: Connection,
        directory: URL
    ) throws -> Unseen? {
        let names = try authorNames(on: connection)
        var rows = try changeRows(
            "WHERE seq > ? ORDER BY seq LIMIT ?", [.integer(cursor), .integer(Int64(limit))], on: connection,
            directory: directory)
        let hasMore = rows.count == limit
        if hasMore, let last = rows.last {
            // The last transaction may go on past the limit: read it whole, alone if it is all
            // there is (a transaction larger than the limit is still delivered in one piece).
            let first = rows.first?.txn
            if first == last.txn {
                rows = try changeRows(
                    "WHERE txn = ? AND seq > ? ORDER BY seq", [.integer(last.txn), .integer(cursor)], on: connection,
                    directory: directory)
            } else {
                rows.removeAll { $0.txn == last.txn }
            }
        }
        let gaps = try self.gaps(authorID: authorID, on: connection)
        guard let through = rows.last?.change.sequence else {
            return gaps.isEmpty ? nil : Unseen(transactions: [], through: cursor, gaps: gaps, hasMore: hasMore)
        }
        var transactions: [HistoryTransaction] = []
        var index = rows.startIndex
        while index < rows.endIndex {
            let head = rows[index]
            var end = index
            while end < rows.endIndex, rows[end].txn == head.txn { end += 1 }
            if includingOwn || head.authorID != authorID {
                transactions.append(HistoryTransaction(
                    id: head.txn, author: names[head.authorID] ?? "#\(head.authorID)", date: head.date,
                    changes: rows[index..<end].map(\.change)))
            }
            index = end
        }
        return Unseen(transactions: transactions, through: through, gaps: gaps, hasMore: hasMore)
    }

    /// The size limit's unreported deletions for an author (`history_gaps`).
    static func gaps(authorID: Int64, on connection: Connection) throws -> [HistoryEntity: Int] {
        let statement = try connection.cachedStatement(
            HistoryTables.gapsOfAuthorSQL)
        statement.bind(authorID, at: 1)
        defer { statement.reset() }
        var gaps: [HistoryEntity: Int] = [:]
        while try statement.step() {
            guard let entity = HistoryEntity(rawValue: statement.int(at: 0)) else { continue }
            gaps[entity, default: 0] += statement.int(at: 1)
        }
        return gaps
    }

    /// Marks `gaps` reported: subtracts them (a sweep may have added more since the read).
    /// Run in the transaction that advances the cursor.
    static func clear(_ gaps: [HistoryEntity: Int], authorID: Int64, on connection: Connection) throws {
        for (entity, count) in gaps {
            try connection.run(
                HistoryTables.reduceGapSQL,
                [.integer(Int64(count)), .integer(authorID), .integer(Int64(entity.rawValue))])
        }
        try connection.run(HistoryTables.deleteClosedGapsSQL, [.integer(authorID)])
    }

    private struct Row {
        let txn: Int64
        let authorID: Int64
        let date: Date
        let change: HistoryChange
    }

    private static func authorNames(on connection: Connection) throws -> [Int64: String] {
        let statement = try connection.cachedStatement(HistoryTables.authorNamesSQL)
        defer { statement.reset() }
        var names: [Int64: String] = [:]
        while try statement.step() { names[statement.int64(at: 0)] = statement.string(at: 1) }
        return names
    }

    private static func changeRows(
        _ condition: String, _ arguments: [DatabaseValue], on connection: Connection, directory: URL
    ) throws -> [Row] {
        let statement = try connection.cachedStatement(
            "SELECT seq, txn, author_id, at, entity, operation, ids, tombstones FROM history " + condition)
        try statement.bind(arguments)
        defer { statement.reset() }
        var rows: [Row] = []
        let decoder = JSONDecoder()
        while try statement.step() {
            let seq = statement.int64(at: 0)
            let invalid = { (what: String) in
                LogStoreError.storeInvalid(directory, reason: "history change \(seq) has \(what)")
            }
            guard let entity = HistoryEntity(rawValue: statement.int(at: 4)) else { throw invalid("an unknown entity") }
            guard let operation = HistoryOperation(rawValue: statement.int(at: 5)) else {
                throw invalid("an unknown operation")
            }
            guard let ids = IDRanges(encoded: statement.bytes(at: 6)) else { throw invalid("undecodable ids") }
            var tombstones: [HistoryTombstone] = []
            if !statement.isNull(at: 7) {
                do {
                    tombstones = try decoder.decode([HistoryTombstone].self, from: Data(statement.string(at: 7).utf8))
                } catch {
                    throw invalid("undecodable tombstones")
                }
            }
            rows.append(Row(
                txn: statement.int64(at: 1), authorID: statement.int64(at: 2),
                date: Date(timeIntervalSince1970: statement.double(at: 3)),
                change: HistoryChange(
                    sequence: seq, entity: entity, operation: operation, ids: ids, tombstones: tombstones)))
        }
        return rows
    }
}
