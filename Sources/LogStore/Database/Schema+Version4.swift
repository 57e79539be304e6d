import CSQLite
import Foundation

extension Schema {
    /// Version 4: a message's source location (`file`, `function`, `line`, `thread_id`) may be
    /// NULL, which is what the technical message of a network task stores: no caller's code or
    /// thread made it, and `""` / `0` read as a real location to SQL tools.
    ///
    /// Dropping a NOT NULL constraint changes no stored row, so instead of copying every message
    /// into a new table (minutes on a large store) the table's definition is edited in place, the
    /// procedure SQLite documents for such changes ("Making Other Kinds Of Table Schema Changes"
    /// in its ALTER TABLE page): `writable_schema`, the edited definition, a new schema version so
    /// every connection reloads it, and a check of the table before the commit.
    static func version4(_ connection: Connection) throws(DatabaseError) {
        guard let definition = try connection.text(
            "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'messages'")
        else {
            throw DatabaseError(extendedCode: SQLITE_CORRUPT, message: "the messages table is missing")
        }
        let edited = nullableSourceColumns(definition)
        // Nothing to edit: fine only when SQLite already reads the columns as nullable.
        guard edited != definition else { return try checkNullable(connection) }
        guard let schemaVersion = try connection.integer("PRAGMA schema_version") else {
            throw DatabaseError(extendedCode: SQLITE_CORRUPT, message: "no schema version")
        }
        try connection.execute("PRAGMA writable_schema = ON")
        let updated = Result { () throws(DatabaseError) in
            try connection.run(
                "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'messages'", [.text(edited)])
            try connection.execute("PRAGMA schema_version = \(schemaVersion + 1)")
        }
        let restored = Result { () throws(DatabaseError) in try connection.execute("PRAGMA writable_schema = OFF") }
        try updated.get()
        try restored.get()
        try checkNullable(connection)
        // The technical messages stored so far (one per task, found through messages_by_task)
        // lose their placeholders too.
        try connection.execute("""
            UPDATE messages SET file = NULL, function = NULL, line = NULL, thread_id = NULL
            WHERE task_id IS NOT NULL
            """)
        // The check SQLite's procedure ends with, on the edited table only (once per store: about
        // a second for a million messages).
        let check = try connection.text("PRAGMA quick_check(messages)")
        guard check == "ok" else {
            throw DatabaseError(
                extendedCode: SQLITE_CORRUPT, message: "integrity check after migration 4: \(check ?? "nothing")")
        }
    }

    /// The definition SQLite now reads must have lost all four constraints: a definition the edit
    /// did not fully match is refused rather than recorded as version 4.
    private static func checkNullable(_ connection: Connection) throws(DatabaseError) {
        let stillRequired = try connection.integer("""
            SELECT count(*) FROM pragma_table_info('messages')
            WHERE name IN ('file', 'function', 'line', 'thread_id') AND "notnull" = 1
            """)
        guard stillRequired == 0 else {
            throw DatabaseError(message: "migration 4 left \(stillRequired ?? -1) source columns NOT NULL")
        }
    }

    /// `definition` with `NOT NULL` removed from the four source-location columns only.
    static func nullableSourceColumns(_ definition: String) -> String {
        var edited = definition
        for (column, type) in [("file", "TEXT"), ("function", "TEXT"), ("line", "INTEGER"), ("thread_id", "INTEGER")] {
            guard let range = edited.range(
                of: #"\b\#(column)\s+\#(type)\s+NOT\s+NULL"#, options: [.regularExpression, .caseInsensitive])
            else { continue }
            let declaration = edited[range]
            edited.replaceSubrange(
                range,
                with: declaration.replacingOccurrences(
                    of: #"\s+NOT\s+NULL"#, with: "", options: [.regularExpression, .caseInsensitive]))
        }
        return edited
    }
}
