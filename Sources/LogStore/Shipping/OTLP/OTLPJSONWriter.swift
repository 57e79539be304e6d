import Foundation

/// The pieces of OTLP/HTTP JSON, written straight into the request's bytes: this runs for every
/// shipped row, and a `JSONEncoder` or a dictionary per record would cost more than the rest of
/// the shipping.
///
/// OTLP/HTTP JSON is Protobuf's JSON mapping with OTLP's own exceptions (OTLP specification,
/// "JSON Protobuf Encoding"): field names in lowerCamelCase, 64-bit integers as decimal strings,
/// enums as integers, and `traceId` / `spanId` as hex rather than Base64.
struct OTLPJSONWriter {
    /// The bytes so far.
    var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends text that needs no escaping: field names, punctuation, the arrow of a task's line.
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `"text"` as a JSON string.
    ///
    /// The export's JSON rules escape more than JSON needs (C1 controls, bidirectional overrides,
    /// U+2028/U+2029) as `\uXXXX`; a collector reads back the same characters, and a body that
    /// ends up in a terminal or a log file cannot drive it.
    mutating func append(string text: String) {
        bytes.append(quoting: text, .json)
    }

    /// Appends a comma unless this is the list's first element, which it then no longer is.
    mutating func separate(_ first: inout Bool) {
        if first {
            first = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }

    /// Appends a 64-bit integer as a JSON string, as the mapping writes `int64` and `fixed64`:
    /// JavaScript readers would round a number past 2^53.
    mutating func append(integerString value: some BinaryInteger) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(decimal: value)
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Attributes (`KeyValue`)

    /// Appends an attribute whose value is a `stringValue`.
    mutating func attribute(_ key: StaticString, string value: String, first: inout Bool) {
        openAttribute(key, first: &first)
        append("{\"stringValue\":")
        append(string: value)
        append("}}")
    }

    /// Appends an attribute whose value is an `intValue` (an `int64`, so a string).
    mutating func attribute(_ key: StaticString, integer value: some BinaryInteger, first: inout Bool) {
        openAttribute(key, first: &first)
        append("{\"intValue\":")
        append(integerString: value)
        append("}}")
    }

    /// Appends an attribute whose value is a `doubleValue`; nothing for a value that is not
    /// finite, which JSON numbers cannot spell (the mapping's `"NaN"` strings are rarely read).
    mutating func attribute(_ key: StaticString, double value: Double, first: inout Bool) {
        guard value.isFinite else { return }
        openAttribute(key, first: &first)
        append("{\"doubleValue\":")
        // `description` is the shortest text that reads back as the same double, and always a
        // JSON number for a finite value (`0.012`, `5.0`, `1e-05`).
        bytes.append(contentsOf: value.description.utf8)
        append("}}")
    }

    /// Appends an attribute whose value is an `arrayValue` of strings (how the HTTP semantic
    /// conventions record a header: `http.response.header.<name>`).
    mutating func attribute(_ key: StaticString, strings values: [String], first: inout Bool) {
        openAttribute(key, first: &first)
        append("{\"arrayValue\":{\"values\":[")
        var firstValue = true
        for value in values {
            separate(&firstValue)
            append("{\"stringValue\":")
            append(string: value)
            append("}")
        }
        append("]}}}")
    }

    /// Appends a metadata entry as an attribute: strings as `stringValue`, dictionaries as
    /// `kvlistValue`, arrays as `arrayValue`.
    mutating func attribute(key: String, metadata value: LogStore.MetadataValue, first: inout Bool) {
        separate(&first)
        append("{\"key\":")
        append(string: key)
        append(",\"value\":")
        append(anyValue: value)
        append("}")
    }

    /// Appends a metadata value as an `AnyValue`.
    mutating func append(anyValue value: LogStore.MetadataValue) {
        switch value {
        case .string(let text):
            append("{\"stringValue\":")
            append(string: text)
            append("}")
        case .stringConvertible(let convertible):
            append("{\"stringValue\":")
            append(string: convertible.description)
            append("}")
        case .dictionary(let dictionary):
            append("{\"kvlistValue\":{\"values\":[")
            var first = true
            for key in Self.sortedKeys(dictionary) {
                attribute(key: key, metadata: dictionary[key] ?? .string(""), first: &first)
            }
            append("]}}")
        case .array(let values):
            append("{\"arrayValue\":{\"values\":[")
            var first = true
            for element in values {
                separate(&first)
                append(anyValue: element)
            }
            append("]}}")
        }
    }

    /// The keys of `metadata` in order: a dictionary has none, and equal metadata should give
    /// equal bytes (a collector's deduplication, a golden test).
    static func sortedKeys(_ metadata: LogStore.Metadata) -> [String] {
        metadata.count < 2 ? Array(metadata.keys) : metadata.keys.sorted()
    }

    private mutating func openAttribute(_ key: StaticString, first: inout Bool) {
        separate(&first)
        append("{\"key\":\"")
        append(key)
        append("\",\"value\":")
    }

    // MARK: Record fields

    /// Appends `"traceId":…,"spanId":…` and `"flags":…` (a `fixed32`, so a number), each when
    /// known, with a comma before each.
    mutating func append(traceContext context: TraceContext) {
        append(",\"traceId\":\"")
        bytes.append(contentsOf: context.traceID.utf8)
        append("\"")
        if let spanID = context.spanID {
            append(",\"spanId\":\"")
            bytes.append(contentsOf: spanID.utf8)
            append("\"")
        }
        if let flags = context.flags {
            append(",\"flags\":")
            bytes.append(decimal: flags)
        }
    }

    /// Appends `"timeUnixNano":"…","observedTimeUnixNano":"…"`, both `date`: the store keeps
    /// no separate time of observation, and a row is observed when it is logged.
    mutating func append(times date: Date) {
        let nanoseconds = Self.unixNanoseconds(date)
        append("\"timeUnixNano\":")
        append(integerString: nanoseconds)
        append(",\"observedTimeUnixNano\":")
        append(integerString: nanoseconds)
    }

    /// The nanoseconds from 1970 to `date`, counted from its microseconds; 0 (OTLP's "unknown")
    /// for a date before 1970, past 2540 (beyond a `fixed64`) or not finite.
    ///
    /// The store keeps a time as a `Double` of seconds since 1970, which today resolves about a
    /// quarter of a microsecond: the digits below the microsecond are the binary fraction's
    /// noise, not the clock's. Rounding there and scaling with integers gives `…123456000` for a
    /// time logged at `.123456`, not a neighbour of it.
    static func unixNanoseconds(_ date: Date) -> UInt64 {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds >= 0, seconds < 18_000_000_000 else { return 0 }
        let whole = seconds.rounded(.down)
        var wholeSeconds = UInt64(whole)
        // Exact: subtracting the integer part of a double loses no bit of its fraction.
        var microseconds = UInt64(((seconds - whole) * 1_000_000).rounded())
        if microseconds == 1_000_000 {
            wholeSeconds += 1
            microseconds = 0
        }
        return wholeSeconds * 1_000_000_000 + microseconds * 1000
    }
}
