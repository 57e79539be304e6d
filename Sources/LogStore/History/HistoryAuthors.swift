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
        let lastMerge: Date?
        let merges: Int
        let retired: Date?
    }

    /// Registers `name` if it is new, its cursor at the end of history (it has nothing to
    /// consume yet, and must not hold back cleanup of what came before it), and returns its row
    /// id. A retired author that opens the store again is active again: it consumes once more.
    /// Run inside a write transaction.
    static func register(_ name: String, isBatch: Bool, on connection: Connection, at date: Date = Date()) throws -> Int64 {
        let end = try connection.integer("SELECT seq FROM sqlite_sequence WHERE name = 'history'") ?? 0
        let insert = try connection.cachedStatement("""
            INSERT INTO history_authors (name, kind, cursor, registered) VALUES (?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, retired = NULL
            """)
        insert.bind(name, at: 1)
        insert.bind(Int64(isBatch ? 1 : 0), at: 2)
        insert.bind(end, at: 3)
        insert.bind(date.timeIntervalSince1970, at: 4)
        try insert.run()
        guard let id = try connection.integer("SELECT id FROM history_authors WHERE name = ?", [.text(name)]) else {
            throw DatabaseError(message: "history author row missing after insert", sql: nil)
        }
        return id
    }

    /// Moves `author`'s cursor to `seq` (never backwards), counting a merge. Run in the same
    /// transaction as whatever the consumption it records wrote.
    static func advance(_ authorID: Int64, to seq: Int64, on connection: Connection, at date: Date = Date()) throws {
        try connection.run("""
            UPDATE history_authors SET cursor = max(cursor, ?), last_merge = ?, merges = merges + 1 WHERE id = ?
            """, [.integer(seq), .real(date.timeIntervalSince1970), .integer(authorID)])
    }

    /// Every author, by name.
    static func all(on connection: Connection) throws -> [Row] {
        let statement = try connection.prepare("""
            SELECT id, name, kind, cursor, registered, last_merge, merges, retired FROM history_authors ORDER BY name
            """)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(Row(
                id: statement.int64(at: 0), name: statement.string(at: 1), isBatch: statement.int64(at: 2) == 1,
                cursor: statement.int64(at: 3), registered: Date(timeIntervalSince1970: statement.double(at: 4)),
                lastMerge: statement.isNull(at: 5) ? nil : Date(timeIntervalSince1970: statement.double(at: 5)),
                merges: Int(statement.int64(at: 6)),
                retired: statement.isNull(at: 7) ? nil : Date(timeIntervalSince1970: statement.double(at: 7))))
        }
        return rows
    }

    /// The seq history may be deleted through: the lowest cursor of the required authors (not
    /// batch, not retired), or nil while one of `required` has no row yet (then nothing goes).
    /// The automatic cleanup and the manual cleaner both ask this, so they follow one rule.
    static func cleanupLimit(required: Set<String>, on connection: Connection) throws -> Int64? {
        let rows = try all(on: connection)
        let registered = Set(rows.map(\.name))
        guard required.isSubset(of: registered) else { return nil }
        let holding = rows.filter { !$0.isBatch && $0.retired == nil }
        if let lowest = holding.map(\.cursor).min() { return lowest }
        return try connection.integer("SELECT seq FROM sqlite_sequence WHERE name = 'history'") ?? 0
    }
}
