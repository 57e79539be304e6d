import Foundation

/// What the registered, required authors (kind 0, not retired) have not consumed yet: per
/// author, the ids of the rows other authors inserted after its cursor. Read on the writer,
/// inside the transaction of the deletion it decides about, so no cursor or insert can change
/// in between.
///
/// It serves the two rules the sweep follows with history on: the retention guard (the age
/// sweep keeps what a consumer has not seen) and the gap count (the size sweep does not wait,
/// and counts what each consumer lost in `history_gaps`).
struct HistoryUnconsumed {
    /// Per author (`history_authors.id`), per entity, the ids it has not consumed.
    private(set) var inserts: [Int64: [HistoryEntity: IDRanges]] = [:]

    /// Reads the unconsumed inserts of `entities`.
    static func read(_ entities: [HistoryEntity], on connection: Connection) throws -> HistoryUnconsumed {
        var result = HistoryUnconsumed()
        let authors = try requiredAuthors(on: connection)
        guard let lowest = authors.map(\.cursor).min(), !entities.isEmpty else { return result }
        let statement = try connection.cachedStatement("""
            SELECT seq, author_id, ids FROM history WHERE seq > ? AND operation = 0 AND entity = ? ORDER BY seq
            """)
        for entity in entities {
            statement.bind(lowest, at: 1)
            statement.bind(Int64(entity.rawValue), at: 2)
            defer { statement.reset() }
            while try statement.step() {
                let seq = statement.int64(at: 0)
                let insertedBy = statement.int64(at: 1)
                // A damaged row (not written by this library) says nothing that can be counted.
                guard let ids = IDRanges(encoded: statement.bytes(at: 2)) else { continue }
                for author in authors where author.cursor < seq && author.id != insertedBy {
                    for range in ids.ranges { result.inserts[author.id, default: [:]][entity, default: IDRanges()].insert(range) }
                }
            }
        }
        return result
    }

    /// The lowest id of `entity` some author has not consumed, or nil when all have been.
    func lowestID(_ entity: HistoryEntity) -> Int64? {
        inserts.values.compactMap { $0[entity]?.ranges.first?.lowerBound }.min()
    }

    /// Adds to `history_gaps`, per author, how many of the `deleted` rows it had not consumed.
    /// Run inside the transaction that deletes them.
    static func countGaps(deleted: [HistoryEntity: IDRanges], on connection: Connection) throws {
        let deleted = deleted.filter { !$0.value.isEmpty }
        guard !deleted.isEmpty else { return }
        let unconsumed = try read(deleted.keys.sorted { $0.rawValue < $1.rawValue }, on: connection)
        let add = try connection.cachedStatement("""
            INSERT INTO history_gaps (author_id, entity, row_count) VALUES (?, ?, ?)
            ON CONFLICT (author_id, entity) DO UPDATE SET row_count = row_count + excluded.row_count
            """)
        for (author, entities) in unconsumed.inserts {
            for (entity, ids) in entities {
                guard let gone = deleted[entity] else { continue }
                let lost = gone.intersectionCount(ids)
                guard lost > 0 else { continue }
                try add.bindAndRun([.integer(author), .integer(Int64(entity.rawValue)), .integer(Int64(lost))])
            }
        }
    }

    private static func requiredAuthors(on connection: Connection) throws -> [(id: Int64, cursor: Int64)] {
        let statement = try connection.cachedStatement(
            "SELECT id, cursor FROM history_authors WHERE kind = 0 AND retired IS NULL")
        defer { statement.reset() }
        var authors: [(id: Int64, cursor: Int64)] = []
        while try statement.step() { authors.append((statement.int64(at: 0), statement.int64(at: 1))) }
        return authors
    }
}
