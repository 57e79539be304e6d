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
        let found = try objects(connection)
        let expected = try expectedObjects(version: version)
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
            let isShadowTable = type == "table" && ["message_search_", "task_search_"].contains { name.hasPrefix($0) }
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
