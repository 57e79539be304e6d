import Foundation

/// Dates as every format writes them: `2025-03-01T12:34:56.789Z`, ISO 8601 in UTC with
/// milliseconds (rounded, as the `logstore` command prints times).
extension [UInt8] {
    /// Appends `date` as ISO 8601. A date outside the years 0000–9999, which four digits spell
    /// and every reader parses, is written as the nearest one they hold. Computed from the days
    /// since 1970 rather than through a formatter, because it runs once per row.
    mutating func append(iso8601 date: Date) {
        let milliseconds = Swift.min(Swift.max(Milliseconds.since1970(date) ?? 0, Self.year0), Self.year9999)
        append(secondOfISO8601: floorDivide(milliseconds, 1000) * 1000)
        appendMilliseconds(floorModulo(milliseconds, 1000))
    }

    /// Appends `date` as ISO 8601, as ``append(iso8601:)``, with the text up to its second
    /// taken from `prefix` when that second was written with it lately (rows logged a few
    /// milliseconds apart): then only the milliseconds are computed.
    mutating func append(iso8601 date: Date, reusing prefix: inout ISO8601SecondPrefix) {
        let milliseconds = Swift.min(Swift.max(Milliseconds.since1970(date) ?? 0, Self.year0), Self.year9999)
        let second = floorDivide(milliseconds, 1000)
        let length = ISO8601SecondPrefix.length
        let slot = Int(UInt64(bitPattern: second) % UInt64(ISO8601SecondPrefix.slots))
        let range = slot * length..<(slot + 1) * length
        if prefix.seconds[slot] != second {
            // Four-digit years (the clamp above): the text is always `length` long.
            let start = count
            append(secondOfISO8601: second * 1000)
            if count - start == length {
                prefix.seconds[slot] = second
                prefix.bytes.replaceSubrange(range, with: self[start...])
            }
        } else {
            prefix.bytes.withUnsafeBufferPointer { append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        }
        appendMilliseconds(floorModulo(milliseconds, 1000))
    }

    private mutating func appendMilliseconds(_ milliseconds: Int64) {
        append(decimal: milliseconds, width: 3)
        append(UInt8(ascii: "Z"))
    }

    /// Appends `2025-03-01T12:34:56.`, the text before the milliseconds of `milliseconds` (in range).
    private mutating func append(secondOfISO8601 milliseconds: Int64) {
        let (days, millisecondOfDay) = (floorDivide(milliseconds, 86_400_000), floorModulo(milliseconds, 86_400_000))
        let (year, month, day) = civilDate(daysSince1970: days)
        append(decimal: year, width: 4)
        append(UInt8(ascii: "-"))
        append(decimal: month, width: 2)
        append(UInt8(ascii: "-"))
        append(decimal: day, width: 2)
        append(UInt8(ascii: "T"))
        append(decimal: millisecondOfDay / 3_600_000, width: 2)
        append(UInt8(ascii: ":"))
        append(decimal: millisecondOfDay / 60_000 % 60, width: 2)
        append(UInt8(ascii: ":"))
        append(decimal: millisecondOfDay / 1000 % 60, width: 2)
        append(UInt8(ascii: "."))
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    private static var year0: Int64 { -62_167_219_200_000 }
    private static var year9999: Int64 { 253_402_300_799_999 }
}

/// The last seconds an export wrote dates in, each as its text up to the milliseconds: a few
/// slots, as rows of a few threads logging side by side alternate between their seconds.
struct ISO8601SecondPrefix {
    static let slots = 8
    /// `2025-03-01T12:34:56.`
    static let length = 20
    var seconds = [Int64](repeating: .min, count: slots)
    var bytes = [UInt8](repeating: 0, count: slots * length)
}

private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    value >= 0 ? value / divisor : (value - divisor + 1) / divisor
}

private func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
    value - floorDivide(value, divisor) * divisor
}

/// The proleptic Gregorian date of a day count (days since 1970-01-01), by eras of 400 years.
private func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
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
