import Foundation

/// One line of a streaming export (text or NDJSON), built as UTF-8 bytes in a buffer that is
/// reused from row to row: no `String` is made per field, which keeps export at disk speed.
struct ExportLine {
    /// The line so far. Settable for the extensions in other files (escaping, JSON), not for the
    /// formats, which go through the `append` methods.
    var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(4096)
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
        guard integer != 0 else { return bytes.append(UInt8(ascii: "0")) }
        var magnitude = UInt64(integer.magnitude)
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        bytes[start...].reverse()
    }

    /// Appends `2025-03-01T12:34:56.789Z`: ISO 8601 in UTC with milliseconds (rounded, as the
    /// `logstore` command prints times). Computed from the days since 1970 rather than through a
    /// formatter, because it runs once per row.
    mutating func append(timestamp date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // Beyond ±2^53 ms (±285,000 years) the value is not a usable time; clamp so that the
        // arithmetic below cannot trap on a hostile row.
        let clamped = Int64(max(-9.0e15, min(9.0e15, milliseconds.isFinite ? milliseconds : 0)))
        let (days, millisecondOfDay) = floorDivision(clamped, 86_400_000)
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        appendPadded(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        appendPadded(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        appendPadded(day, width: 2)
        bytes.append(UInt8(ascii: "T"))
        appendPadded(millisecondOfDay / 3_600_000, width: 2)
        bytes.append(UInt8(ascii: ":"))
        appendPadded(millisecondOfDay / 60_000 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        appendPadded(millisecondOfDay / 1000 % 60, width: 2)
        bytes.append(UInt8(ascii: "."))
        appendPadded(millisecondOfDay % 1000, width: 3)
        bytes.append(UInt8(ascii: "Z"))
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

    private mutating func appendPadded(_ value: Int64, width: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            return appendPadded(-value, width: width)
        }
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        for _ in digits..<max(digits, width) { bytes.append(UInt8(ascii: "0")) }
        append(integer: value)
    }

    private func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// The proleptic Gregorian date of a day count (days since 1970-01-01), by eras of 400 years.
    private static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSince1970 + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
