import Foundation

/// The columns one entity's tombstones keep (``HistoryConfiguration/tombstones``), checked
/// against that entity's real columns: only the SQL of this allow-list ever reaches a
/// statement, never a configured name as such.
struct HistoryTombstoneFields: Sendable, Hashable {
    /// The field names, as configured (repeats and `id`, which every tombstone has, left out).
    let names: [String]
    /// What follows `RETURNING id` in a delete: `, <expression>` per field.
    let returningSQL: String

    /// The columns a tombstone may keep, per entity, with the SQL that reads each. A blob's
    /// key is a 20-byte SHA-1: kept as the 40 lowercase hex characters the API names bodies by.
    /// Bulk content (a message's text and metadata, a blob's bytes) is left out: a tombstone
    /// says which row went, it is not a copy of it.
    static let allowed: [HistoryEntity: [String: String]] = [
        .message: Dictionary(uniqueKeysWithValues: [
            "created_at", "session_id", "level", "label_id", "file", "function", "line", "thread_id", "task_id",
        ].map { ($0, $0) }),
        .task: Dictionary(uniqueKeysWithValues: [
            "uuid", "session_id", "label_id", "created_at", "task_type", "state", "method", "url", "host", "path",
            "status_code", "error_code", "error_domain", "content_type", "duration", "redirect_count",
            "request_body_size", "response_body_size", "body_flags", "direction",
        ].map { ($0, $0) }),
        .session: ["uuid": "uuid", "started_at": "started_at"],
        .blob: [
            "key": "lower(hex(key))", "size": "size", "decompressed_size": "decompressed_size",
            "compression": "compression",
        ],
    ]

    private init(names: [String], expressions: [String]) {
        self.names = names
        self.returningSQL = expressions.map { ", " + $0 }.joined()
    }

    /// The fields of each entity that keeps some, checked.
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` naming the first field that is not one
    ///   of its entity's allowed columns.
    static func validated(
        _ configuration: [HistoryEntity: [String]]
    ) throws(LogStoreError) -> [HistoryEntity: HistoryTombstoneFields] {
        var result: [HistoryEntity: HistoryTombstoneFields] = [:]
        for entity in HistoryEntity.allCases {
            guard let requested = configuration[entity], let allowed = allowed[entity] else { continue }
            var names: [String] = []
            var expressions: [String] = []
            for name in requested where name != "id" && !names.contains(name) {
                guard let expression = allowed[name] else {
                    throw LogStoreError.invalidArgument(
                        "history tombstones: \(String(reflecting: name)) is not a field a \(entity) tombstone can keep "
                            + "(one of: \(allowed.keys.sorted().joined(separator: ", ")))")
                }
                names.append(name)
                expressions.append(expression)
            }
            if !names.isEmpty { result[entity] = HistoryTombstoneFields(names: names, expressions: expressions) }
        }
        return result
    }

    /// The tombstone of the row `statement` has just returned: its id at column 0, then the
    /// fields in order (the columns of ``returningSQL``).
    func tombstone(from statement: Statement) -> HistoryTombstone {
        var fields: [String: HistoryValue] = [:]
        fields.reserveCapacity(names.count)
        for (offset, name) in names.enumerated() {
            fields[name] = HistoryValue(statement.value(at: Int32(offset + 1)))
        }
        return HistoryTombstone(id: statement.int64(at: 0), fields: fields)
    }
}

extension HistoryValue {
    /// A column's value; bytes (no allowed field holds any) as lowercase hex text. SQLite can
    /// hold an infinite REAL, which JSON cannot: it is kept as `.null`, so no stored value can
    /// fail the deletion that records it.
    init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = value.isFinite ? .real(value) : .null
        case .text(let value): self = .text(value)
        case .blob(let bytes): self = .text(bytes.map { String(format: "%02x", $0) }.joined())
        }
    }
}
