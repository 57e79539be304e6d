import Foundation

/// The `history_authors` table: registration, cursors, retirement.
enum HistoryAuthors {
    /// An author's row.
    struct Row: Sendable, Equatable {
        let id: Int64
        let name: String
        let isBatch: Bool
        let cursor: Int64
        let registered: Date
        /// When it first opened the store itself; nil while only another author named it.
        let opened: Date?
        let lastMerge: Date?
        let merges: Int
        let retired: Date?
        /// Whether it asks for the retention guard (``HistoryConfiguration/retentionGuard``, as
        /// of its last open); `false` on a schema before the column.
        let guardsRetention: Bool
    }

    /// Registers `name` as it opens the store, and the consumers its configuration names that
    /// have no row yet, each new row's cursor at the end of history; returns `name`'s row id.
    /// Run inside a write transaction.
    ///
    /// A named author's row holds history back for it from the moment it was named, so when it
    /// first opens, what was kept for it is there to merge. An author's own open keeps its
    /// cursor, takes the kind and the retention guard request its configuration gives it (so
    /// reopening with `retentionGuard: false` withdraws an earlier request), and brings it
    /// back from retirement. A named author's row asks for no guard until the author opens.
    static func register(
        _ name: String, isBatch: Bool, guardsRetention: Bool = false, naming consumers: Set<String> = [],
        on connection: Connection, at date: Date = Date()
    ) throws -> Int64 {
        let end = try connection.integer(HistoryTables.lastSequenceSQL) ?? 0
        let insert = try connection.cachedStatement(HistoryTables.registerSQL)
        insert.bind(name, at: 1)
        insert.bind(Int64(isBatch ? 1 : 0), at: 2)
        insert.bind(end, at: 3)
        insert.bind(date.timeIntervalSince1970, at: 4)
        insert.bind(date.timeIntervalSince1970, at: 5)
        insert.bind(Int64(guardsRetention ? 1 : 0), at: 6)
        try insert.run()
        let naming = try connection.cachedStatement(HistoryTables.nameConsumerSQL)
        for consumer in consumers.sorted() where consumer != name {
            naming.bind(consumer, at: 1)
            naming.bind(end, at: 2)
            naming.bind(date.timeIntervalSince1970, at: 3)
            try naming.run()
        }
        guard let id = try connection.integer(HistoryTables.authorIDSQL, [.text(name)]) else {
            throw DatabaseError(message: "history author row missing after insert", sql: nil)
        }
        return id
    }

    /// Moves `author`'s cursor to `seq` (never backwards), counting a merge unless it only
    /// skips the author's own changes. Run in the same transaction as whatever the consumption
    /// it records wrote.
    static func advance(
        _ authorID: Int64, to seq: Int64, on connection: Connection, countsMerge: Bool = true, at date: Date = Date()
    ) throws {
        if countsMerge {
            try connection.run(HistoryTables.recordMergeSQL, [.integer(seq), .real(date.timeIntervalSince1970), .integer(authorID)])
        } else {
            try connection.run(
                HistoryTables.advanceCursorSQL, [.integer(seq), .integer(authorID)])
        }
    }

    /// `author`'s cursor (0 for a row that is gone).
    static func cursor(_ authorID: Int64, on connection: Connection) throws -> Int64 {
        try connection.integer(HistoryTables.cursorSQL, [.integer(authorID)]) ?? 0
    }

    /// Every author, by name.
    static func all(on connection: Connection) throws -> [Row] {
        // A store of schema 9 opened read-only has no such column: nobody asked there.
        let guards = try Migrations.currentVersion(connection) >= Migrations.firstVersionWithRetentionRequests
            ? "guards_retention" : "0"
        let statement = try connection.prepare("""
            SELECT id, name, kind, cursor, registered, last_merge, merges, retired, opened, \(guards)
            FROM history_authors ORDER BY name
            """)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(Row(
                id: statement.int64(at: 0), name: statement.string(at: 1), isBatch: statement.int64(at: 2) == 1,
                cursor: statement.int64(at: 3), registered: Date(timeIntervalSince1970: statement.double(at: 4)),
                opened: statement.isNull(at: 8) ? nil : Date(timeIntervalSince1970: statement.double(at: 8)),
                lastMerge: statement.isNull(at: 5) ? nil : Date(timeIntervalSince1970: statement.double(at: 5)),
                merges: Int(statement.int64(at: 6)),
                retired: statement.isNull(at: 7) ? nil : Date(timeIntervalSince1970: statement.double(at: 7)),
                guardsRetention: statement.int64(at: 9) == 1))
        }
        return rows
    }

    /// The seq history may be deleted through: the lowest cursor of the authors that consume
    /// it (not batch, not retired; named ones that have not opened yet included), or nil while
    /// one of `required` has no row (a store opened by a tool before any author named it). The
    /// automatic cleanup and the manual cleaner both ask this, so they follow one rule.
    static func cleanupLimit(required: Set<String>, on connection: Connection) throws -> Int64? {
        let rows = try all(on: connection)
        let registered = Set(rows.map(\.name))
        guard required.isSubset(of: registered) else { return nil }
        let holding = rows.filter { !$0.isBatch && $0.retired == nil }
        if let lowest = holding.map(\.cursor).min() { return lowest }
        return try connection.integer(HistoryTables.lastSequenceSQL) ?? 0
    }
}
