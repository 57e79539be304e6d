/// The partitions of the full-text index of messages (``Schema/version11``): FTS5 tables over
/// consecutive ranges of message ids, listed in `search_partitions`. Their statements, and the
/// SQL of a partition's own table.
enum SearchPartitions {
    /// One partition: its table and the ids it covers.
    struct Partition: Sendable, Equatable {
        /// Its row id in `search_partitions` (partitions are numbered in id order).
        var number: Int64
        /// Its FTS5 table.
        var table: String
        /// The lowest message id it may hold.
        var firstID: Int64
        /// The highest message id it holds: its `last_id` once sealed, the index's reach while
        /// it is the one being written.
        var lastID: Int64
        /// Whether the writer still indexes into it.
        var isOpen: Bool
        /// Messages indexed into it.
        var indexedRows: Int64
    }

    /// How many partitions are listed.
    static let countSQL = "SELECT count(*) FROM search_partitions"

    /// Every partition, oldest first, with the index's reach (for the open one's last id).
    static let listSQL = """
        SELECT p.id, p.name, p.first_id, coalesce(p.last_id, s.indexed_through), p.last_id IS NULL, p.indexed_rows
        FROM search_partitions AS p, search_state AS s WHERE s.id = 1 ORDER BY p.first_id
        """

    /// Lists a new open partition: its number, table, and first id.
    static let insertSQL = "INSERT INTO search_partitions (id, name, first_id, last_id, indexed_rows) VALUES (?, ?, ?, NULL, 0)"

    /// The number after every partition's there was (the first partition of schema 10 was 1).
    static let nextNumberSQL = "SELECT max(coalesce((SELECT max(id) FROM search_partitions), 0), 1) + 1"

    /// Seals a partition at the index's reach.
    static let sealSQL = "UPDATE search_partitions SET last_id = ? WHERE id = ?"

    /// Counts messages indexed into a partition.
    static let addRowsSQL = "UPDATE search_partitions SET indexed_rows = indexed_rows + ? WHERE id = ?"

    /// Unlists a partition (its table is dropped in the same transaction).
    static let deleteSQL = "DELETE FROM search_partitions WHERE id = ?"

    /// Whether any message is left in an id range.
    static let anyMessageInRangeSQL = "SELECT EXISTS (SELECT 1 FROM messages WHERE id BETWEEN ? AND ?)"

    /// The table of partition `number`.
    static func tableName(_ number: Int64) -> String { "message_search_\(number)" }

    /// Creates partition `number`'s table: the columns, tokenizer and merge setting of
    /// ``Schema/version5``'s index, so every partition means the same thing to a search.
    static func createSQL(_ table: String) -> String {
        """
        CREATE VIRTUAL TABLE \(table) USING fts5(
            text, metadata,
            content = 'messages', content_rowid = 'id', columnsize = 0,
            tokenize = 'unicode61 remove_diacritics 2'
        );
        INSERT INTO \(table) (\(table), rank) VALUES ('automerge', 12);
        """
    }

    /// Indexes the messages with ids above the first argument, through the second, into `table`.
    static func indexRangeSQL(_ table: String) -> String {
        """
        INSERT INTO \(table) (rowid, text, metadata)
        SELECT id, text, metadata FROM messages WHERE id > ? AND id <= ?
        """
    }

    /// Removes from `table` the words of the message with the argument's id (FTS5's `delete`
    /// with the text it indexed): what is removed on purpose leaves the index at once.
    static func purgeSQL(_ table: String) -> String {
        """
        INSERT INTO \(table) (\(table), rowid, text, metadata)
        SELECT 'delete', id, text, metadata FROM messages WHERE id = ?
        """
    }

    /// Merges about `pages` pages of `table`'s segments (FTS5's `merge` command, its count as
    /// the argument): a positive count merges only levels that hold `usermerge` segments (4);
    /// a negative one merges whatever there is, toward a single segment, as `optimize` would,
    /// but in bounded steps.
    static func mergeSQL(_ table: String) -> String {
        "INSERT INTO \(table) (\(table), rank) VALUES ('merge', ?)"
    }

    /// Drops a partition's table (its shadow tables go with it).
    static func dropSQL(_ table: String) -> String { "DROP TABLE \(table)" }

    /// The partitions, oldest first; for a store of schema 5 to 10 (opened read-only), its one
    /// index as the only partition. Empty without an index.
    static func list(_ connection: Connection) throws(DatabaseError) -> [Partition] {
        let version = try connection.userVersion() ?? 0
        guard version >= Int64(Migrations.firstVersionWithSearch) else { return [] }
        guard version >= Int64(Migrations.firstVersionWithSearchPartitions) else {
            let reach = try connection.integer(Search.indexedThroughSQL) ?? 0
            return [Partition(number: 1, table: "message_search", firstID: 1, lastID: reach, isOpen: true, indexedRows: 0)]
        }
        let statement = try connection.cachedStatement(listSQL)
        var partitions: [Partition] = []
        while try statement.step() {
            partitions.append(Partition(
                number: statement.int64(at: 0), table: statement.string(at: 1), firstID: statement.int64(at: 2),
                lastID: statement.int64(at: 3), isOpen: statement.int64(at: 4) != 0, indexedRows: statement.int64(at: 5)))
        }
        return partitions
    }

    /// Whether `name` is a partition's table, or one of its shadow tables (`…_data`, `…_idx`,
    /// `…_config`), as a store names them: `message_search` or `message_search_` and a number.
    static func isPartitionTable(_ name: String) -> Bool {
        partitionName(of: name) == name
    }

    /// The partition a table belongs to (itself or one of its shadow tables); `nil` for others.
    static func partitionName(of name: String) -> String? {
        var base = Substring(name)
        for suffix in ["_data", "_idx", "_config", "_docsize", "_content"] where base.hasSuffix(suffix) {
            base = base.dropLast(suffix.count)
            break
        }
        if base == "message_search" { return String(base) }
        guard base.hasPrefix("message_search_") else { return nil }
        let number = base.dropFirst("message_search_".count)
        guard !number.isEmpty, number.count <= 18, number.first != "0", number.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return String(base)
    }
}
