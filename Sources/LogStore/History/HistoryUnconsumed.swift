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

    /// Reads the unconsumed inserts of `entities`: per required author, those of every other
    /// author after its cursor, found through `history_inserts` (its own rows, the bulk of a
    /// store with one writer, are never read).
    static func read(_ entities: [HistoryEntity], on connection: Connection) throws -> HistoryUnconsumed {
        var result = HistoryUnconsumed()
        let authors = try requiredAuthors(on: connection)
        guard !authors.isEmpty, !entities.isEmpty else { return result }
        // Any author may have inserted rows: batch and retired ones too.
        let writers = try connection.integers(HistoryTables.authorIDsSQL)
        let statement = try connection.cachedStatement(HistoryTables.insertedIDsAfterSQL)
        for author in authors {
            for entity in entities {
                var ranges: [ClosedRange<Int64>] = []
                for writer in writers where writer != author.id {
                    statement.bind(Int64(entity.rawValue), at: 1)
                    statement.bind(writer, at: 2)
                    statement.bind(author.cursor, at: 3)
                    defer { statement.reset() }
                    while try statement.step() {
                        // A damaged row (not written by this library) says nothing that can be counted.
                        guard let ids = IDRanges(encoded: statement.bytes(at: 0)) else { continue }
                        ranges += ids.ranges
                    }
                }
                if !ranges.isEmpty { result.inserts[author.id, default: [:]][entity] = IDRanges(unionOf: ranges) }
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
        let add = try connection.cachedStatement(HistoryTables.addGapSQL)
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
            HistoryTables.activeConsumersSQL)
        defer { statement.reset() }
        var authors: [(id: Int64, cursor: Int64)] = []
        while try statement.step() { authors.append((statement.int64(at: 0), statement.int64(at: 1))) }
        return authors
    }
}
