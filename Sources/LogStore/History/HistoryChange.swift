public import Foundation

/// One change of the history: what one transaction did to one entity with one operation, and
/// the rows it concerned, by id.
public struct HistoryChange: Sendable, Hashable {
    /// Its place in the history: increasing in commit order across every process, never reused.
    public let sequence: Int64
    /// What it concerns.
    public let entity: HistoryEntity
    /// What happened to the rows.
    public let operation: HistoryOperation
    /// The rows' ids (`messages.id`, `tasks.id`, `sessions.id` or `blobs.id`).
    public let ids: IDRanges
    /// For a delete of an entity that keeps them (``HistoryConfiguration/tombstones``): the
    /// preserved fields of each deleted row, in id order. Empty otherwise.
    public let tombstones: [HistoryTombstone]
}

/// One transaction's changes, grouped by entity and operation in the order they first
/// happened in it.
public struct HistoryTransaction: Sendable, Hashable {
    /// The sequence number of its first change: names the transaction.
    public let id: Int64
    /// The author that committed it.
    public let author: String
    /// When it committed (the writer's clock; for display, never for ordering).
    public let date: Date
    /// Its changes, one per entity and operation.
    public let changes: [HistoryChange]
    /// The sequence number of its last change.
    public var lastSequence: Int64 { changes.last?.sequence ?? id }
}

/// The preserved fields of one deleted row, so an observer of deletions can still say what went.
public struct HistoryTombstone: Sendable, Hashable, Codable {
    /// The deleted row's id.
    public let id: Int64
    /// Its preserved fields by column name (say `url`, `status_code`).
    public let fields: [String: HistoryValue]

    /// - Parameters:
    ///   - id: the deleted row's id.
    ///   - fields: its preserved fields by column name.
    public init(id: Int64, fields: [String: HistoryValue]) {
        self.id = id
        self.fields = fields
    }
}

/// A preserved field's value, as SQLite held it (a date is `.real`, seconds since 1970).
public enum HistoryValue: Sendable, Hashable, Codable {
    /// An integer.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// Text.
    case text(String)
    /// No value.
    case null

    /// The integer, if it is one.
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The text, if it is text.
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    /// The number, integer or real.
    public var real: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    /// Encodes as the plain JSON value (a number, a string or `null`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// Decodes a plain JSON value: an integral number is `.integer`, another number `.real`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else {
            self = .text(try container.decode(String.self))
        }
    }
}
