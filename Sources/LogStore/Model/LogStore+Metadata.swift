extension LogStore {
    /// Structured data attached to a message, written as literals:
    /// `["user": "42", "roles": ["admin"], "request": ["id": "\(id)"]]`.
    ///
    /// Stored as a JSON object in the `metadata` column, so SQLite's JSON functions can query it
    /// (`json_extract(metadata, '$.user')`).
    public typealias Metadata = [String: MetadataValue]

    /// One metadata value: swift-log's four kinds.
    public enum MetadataValue: Sendable, Hashable, Codable, CustomStringConvertible {
        /// A string.
        case string(String)
        /// A value rendered with its `description` when the message is stored (off the caller's
        /// thread). It reads back as ``string(_:)``.
        ///
        /// Boxed (`indirect`): an existential is 40 bytes inline, and it made every metadata
        /// value twice the size of a string's (48 bytes against 24) in the events that wait.
        indirect case stringConvertible(any CustomStringConvertible & Sendable)
        /// A nested dictionary.
        case dictionary(Metadata)
        /// A list.
        case array([MetadataValue])

        /// The value as text: a string itself, a dictionary or an array as Swift prints it.
        public var description: String {
            switch self {
            case .string(let value): value
            case .stringConvertible(let value): value.description
            case .dictionary(let value): value.description
            case .array(let value): value.description
            }
        }

        /// Values compare by content, with ``stringConvertible(_:)`` compared by its description.
        public static func == (lhs: MetadataValue, rhs: MetadataValue) -> Bool {
            switch (lhs.normalized, rhs.normalized) {
            case (.string(let a), .string(let b)): a == b
            case (.dictionary(let a), .dictionary(let b)): a == b
            case (.array(let a), .array(let b)): a == b
            default: false
            }
        }

        /// Hashes the content, as `==` compares it (``stringConvertible(_:)`` as its description).
        public func hash(into hasher: inout Hasher) {
            switch normalized {
            case .string(let value): hasher.combine(0); hasher.combine(value)
            case .dictionary(let value): hasher.combine(1); hasher.combine(value)
            case .array(let value): hasher.combine(2); hasher.combine(value)
            case .stringConvertible: break
            }
        }

        private var normalized: MetadataValue {
            if case .stringConvertible(let value) = self { return .string(value.description) }
            return self
        }

        /// Reads stored JSON: a string, an array or an object; a number or a boolean written by another tool becomes its text.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([MetadataValue].self) {
                self = .array(value)
            } else if let value = try? container.decode(Metadata.self) {
                self = .dictionary(value)
            } else if let value = try? container.decode(Bool.self) {
                // Rows written by other tools may hold JSON scalars; keep them readable.
                self = .string(value ? "true" : "false")
            } else if let value = try? container.decode(Int64.self) {
                self = .string(String(value))
            } else if let value = try? container.decode(Double.self) {
                self = .string(String(value))
            } else {
                self = .string("")
            }
        }

        /// Writes the value as JSON: a string (``stringConvertible(_:)`` as its description), an array or an object.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .stringConvertible(let value): try container.encode(value.description)
            case .dictionary(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            }
        }
    }
}

extension LogStore.MetadataValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
{
    /// A string literal as ``string(_:)``: `["user": "42"]`.
    public init(stringLiteral value: String) {
        self = .string(value)
    }

    /// A dictionary literal as ``dictionary(_:)``; the last of duplicate keys wins.
    public init(dictionaryLiteral elements: (String, LogStore.MetadataValue)...) {
        self = .dictionary(LogStore.Metadata(elements, uniquingKeysWith: { _, last in last }))
    }

    /// An array literal as ``array(_:)``: `["roles": ["admin", "ops"]]`.
    public init(arrayLiteral elements: LogStore.MetadataValue...) {
        self = .array(elements)
    }
}
