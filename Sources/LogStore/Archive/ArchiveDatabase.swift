import Foundation

/// The database extracted from an archive, read like a store's but trusted like an outside file:
/// every connection is immutable, read-only and hardened, and the schema must be exactly the one
/// this library makes (a view or trigger someone planted is refused before any query runs).
enum ArchiveDatabase {
    /// Longest string or blob a query of the archive's database may produce: its rows are a
    /// store's, whose bodies (inline ones are small) and texts stay far below this.
    static let maximumValueLength: Int32 = 256 << 20

    /// A reader on the extracted database at `url`.
    static func openReader(_ url: URL) throws -> Connection {
        let escaped = url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? url.path
        let connection = try Connection(path: "file:\(escaped)?mode=ro&immutable=1", mode: .readOnly)
        try connection.hardenForUntrustedFile(.checkedSchema, maxLength: maximumValueLength)
        return connection
    }

    /// Checks the extracted database's schema version and every object in its schema: exactly
    /// the schema a store of that version has (an archive of an older library holds an older
    /// schema, from ``Migrations/firstArchiveVersion`` on).
    ///
    /// - Throws: ``LogStoreError/unsupportedVersion(found:supported:)`` for a newer schema;
    ///   ``LogStoreError/storeInvalid(_:reason:)``, naming `archive`, for anything else.
    static func check(_ connection: Connection, schemaVersion: Int, archive: URL) throws {
        let invalid = { (reason: String) in LogStoreError.storeInvalid(archive, reason: reason) }
        let version = try Migrations.currentVersion(connection)
        guard version <= Migrations.latestVersion else {
            throw LogStoreError.unsupportedVersion(found: .schema(version), supported: .schema(Migrations.latestVersion))
        }
        guard version == schemaVersion else { throw invalid("its database and its info record disagree on the schema version") }
        var found = try objects(connection)
        var expected = try expectedObjects(version: version)
        // The full-text index's partitions come and go with the store's contents: each found is
        // checked against the one shape a partition has; the rest must be exactly the schema.
        let partitions = found.filter { isPartitionObject($0.key) }
        found = found.filter { !isPartitionObject($0.key) }
        expected = expected.filter { !isPartitionObject($0.key) }
        try checkPartitions(partitions, invalid: invalid)
        guard found.keys == expected.keys else {
            let planted = Set(found.keys).subtracting(expected.keys).sorted()
            throw invalid(planted.isEmpty
                ? "its database lacks part of the schema"
                : "its database holds what a store's never does: \(planted.joined(separator: ", "))")
        }
        for (name, definition) in expected where found[name] != definition {
            throw invalid("its database defines \(name) differently from a store's")
        }
    }

    /// Every schema object as "type name" → its SQL. The full-text indexes' own tables are
    /// compared by their columns instead (name, type, key, hidden or generated), as their SQL text
    /// belongs to SQLite's FTS5 and may differ between its versions: a generated column or a
    /// virtual table in their place still differs. The connection's defensive mode keeps them
    /// read-only, and `trusted_schema = OFF` keeps them inert.
    private static func objects(_ connection: Connection) throws -> [String: String] {
        let statement = try connection.prepare("SELECT type, name, coalesce(sql, '') FROM sqlite_schema")
        var objects: [String: String] = [:]
        var shadowTables: [String] = []
        while try statement.step() {
            let type = statement.string(at: 0)
            let name = statement.string(at: 1)
            let sql = statement.string(at: 2)
            let partition = SearchPartitions.partitionName(of: name)
            let isShadowTable = type == "table"
                && (name.hasPrefix("task_search_") || (partition != nil && partition != name))
            if isShadowTable { shadowTables.append(name) }
            objects["\(type) \(name)"] = isShadowTable ? (sql.hasPrefix("CREATE TABLE") ? "" : "not a plain table") : sql
        }
        for name in shadowTables {
            let columns = try connection.strings(
                "SELECT name || ' ' || type || ' ' || pk || ' ' || hidden || ' ' || \"notnull\" FROM pragma_table_xinfo(?) ORDER BY cid",
                [.text(name)])
            objects["table \(name)", default: ""] += columns.joined(separator: ", ")
        }
        return objects
    }

    /// Whether `key` ("type name", as ``objects(_:)`` makes it) is a full-text index partition
    /// or one of its shadow tables.
    private static func isPartitionObject(_ key: String) -> Bool {
        guard key.hasPrefix("table ") else { return false }
        return SearchPartitions.partitionName(of: String(key.dropFirst("table ".count))) != nil
    }

    /// Checks every partition object found (``isPartitionObject(_:)``): a partition's table is
    /// the FTS5 table ``SearchPartitions/createSQL(_:)`` makes (whitespace aside), and each of
    /// its shadow tables has the columns such a table's has, and belongs to a partition found.
    private static func checkPartitions(_ found: [String: String], invalid: (String) -> LogStoreError) throws {
        let template = try partitionTemplate()
        let tables = Set(found.keys.compactMap { key -> String? in
            let name = String(key.dropFirst("table ".count))
            return SearchPartitions.partitionName(of: name) == name ? name : nil
        })
        for (key, definition) in found {
            let name = String(key.dropFirst("table ".count))
            guard let partition = SearchPartitions.partitionName(of: name), tables.contains(partition) else {
                throw invalid("its database holds what a store's never does: \(key)")
            }
            let shape = name == partition ? normalized(definition, table: partition) : definition
            let suffix = String(name.dropFirst(partition.count))
            guard shape == template["table \(templateName)" + suffix] else {
                throw invalid("its database defines \(key) differently from a store's")
            }
        }
    }

    /// The partition the template is made as.
    private static let templateName = SearchPartitions.tableName(1)

    /// The objects of a partition (``templateName``), its own SQL normalized (``normalized(_:table:)``).
    private static func partitionTemplate() throws -> [String: String] {
        let connection = try Connection(path: ":memory:", mode: .readWrite(create: true))
        defer { connection.close() }
        try connection.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, text TEXT, metadata TEXT)")
        try connection.execute(SearchPartitions.createSQL(templateName))
        var objects = try objects(connection)
        let key = "table \(templateName)"
        objects[key] = objects[key].map { normalized($0, table: templateName) }
        return objects
    }

    /// `sql` with its runs of white space made one space, and the table's name `T`.
    private static func normalized(_ sql: String, table: String) -> String {
        let words = sql.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return words.replacingOccurrences(of: "CREATE VIRTUAL TABLE \(table) USING", with: "CREATE VIRTUAL TABLE T USING")
    }

    /// Brings the checked database at `url`, of an older schema, up to this library's: it is the
    /// store's own private copy, extracted for this open, so migrating it changes nothing of the
    /// archive. Its schema was checked to be exactly one a store of that version had, so only
    /// this library's own migrations run on it; the caller checks the result again.
    static func migrate(_ url: URL) throws {
        let connection = try Connection(path: url.path, mode: .readWrite(create: false))
        defer { connection.close() }
        try connection.hardenForUntrustedFile(.checkedSchema, maxLength: maximumValueLength)
        // A scratch file: a crash leaves it to be deleted with its directory, so no journal.
        try connection.setScratchJournal(.off)
        try Migrations.migrate(connection)
    }

    /// The schema a new store has at `version` (this library's latest unless older).
    private static func expectedObjects(version: Int) throws -> [String: String] {
        let connection = try Connection(path: ":memory:", mode: .readWrite(create: true))
        defer { connection.close() }
        try Migrations.migrate(connection, upTo: version)
        return try objects(connection)
    }
}
