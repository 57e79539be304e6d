import Foundation

/// One line of a streaming export (text or NDJSON), built as UTF-8 bytes in a buffer that is
/// reused from row to row: no `String` is made per field, which keeps export at disk speed.
struct ExportLine {
    /// The line so far. Settable for the extension in another file (JSON), not for the formats,
    /// which go through the `append` methods.
    var bytes: [UInt8] = []
    /// The second of the last timestamp, kept across ``reset()``: consecutive rows share it.
    private var timestampPrefix = ISO8601SecondPrefix()

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// Empties the line, keeping its storage for the next row.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends ASCII known at compile time (field names, punctuation): never escaped.
    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends one byte.
    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends text without escaping: only for text this code made (numbers, UUIDs, names).
    mutating func appendUnescaped(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends an integer in decimal.
    mutating func append(integer: some BinaryInteger) {
        bytes.append(decimal: integer)
    }

    /// Appends `2025-03-01T12:34:56.789Z`: ISO 8601 in UTC with milliseconds, as every format
    /// writes dates (`Array+ISO8601.swift`).
    mutating func append(timestamp date: Date) {
        bytes.append(iso8601: date, reusing: &timestampPrefix)
    }

    /// Appends `text`, escaped by `rules`.
    mutating func append(_ text: String, escapedFor rules: EscapeRules) {
        bytes.append(escaping: text, rules)
    }

    /// Appends a whole number of milliseconds as seconds, the JSON number that
    /// ``append(jsonNumber:)`` writes for `milliseconds / 1000`, without its `description` (a
    /// `String` per row). Below 10^14 ms (the year 5138) a double's spacing is far finer than
    /// 0.001, so the decimal of the milliseconds with the trailing zeros of its fraction dropped
    /// is the shortest text that reads back as that double: what `description` writes.
    mutating func append(jsonMilliseconds milliseconds: Double) {
        guard abs(milliseconds) < 1e14, milliseconds == milliseconds.rounded() else {
            return append(jsonNumber: milliseconds / 1000)
        }
        let whole = Int64(milliseconds)
        let fraction = Int(whole.magnitude % 1000)
        guard fraction != 0 else { return append(integer: whole / 1000) }
        if whole < 0 { append(byte: UInt8(ascii: "-")) }
        append(integer: whole.magnitude / 1000)
        append(byte: UInt8(ascii: "."))
        append(byte: UInt8(ascii: "0") + UInt8(fraction / 100))
        if fraction % 100 != 0 {
            append(byte: UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
            if fraction % 10 != 0 { append(byte: UInt8(ascii: "0") + UInt8(fraction % 10)) }
        }
    }

    /// Appends a number of seconds as a JSON number (`1750000000.123`); `null` when it is not
    /// finite, which JSON cannot hold.
    mutating func append(jsonNumber value: Double) {
        guard value.isFinite else { return append("null") }
        if value == value.rounded(), abs(value) < 1e15 {
            append(integer: Int64(value))
        } else {
            appendUnescaped(value.description)
        }
    }
}
