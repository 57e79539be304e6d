import Foundation

/// JSON values for the NDJSON export, written straight into the line: one `JSONEncoder` per row
/// costs several times the whole export.
extension ExportLine {
    /// Appends `"text"`, escaped.
    mutating func append(jsonString text: String) {
        bytes.append(quoting: text, .json)
    }

    /// Appends `"text"`, or `null` when there is none.
    mutating func append(jsonString text: String?) {
        guard let text else { return append("null") }
        append(jsonString: text)
    }

    /// Appends an integer, or `null`.
    mutating func append(jsonInteger value: (some BinaryInteger)?) {
        guard let value else { return append("null") }
        append(integer: value)
    }

    /// Appends `,"name":` (without the comma for the first field of an object).
    mutating func appendKey(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        append(name)
        append("\":")
    }

    /// Appends metadata as a JSON object, keys sorted so that the output is deterministic.
    mutating func append(jsonMetadata metadata: LogStore.Metadata) {
        bytes.append(jsonMetadata: metadata, .json)
    }

    /// Appends string pairs (headers) as a JSON object in ``HeaderOrder`` order, or `null` when
    /// there are none.
    mutating func append(jsonStrings pairs: [String: String]?) {
        guard let pairs else { return append("null") }
        bytes.append(UInt8(ascii: "{"))
        for (position, pair) in HeaderOrder.sorted(pairs).enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            append(jsonString: pair.name)
            bytes.append(UInt8(ascii: ":"))
            append(jsonString: pair.value)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
