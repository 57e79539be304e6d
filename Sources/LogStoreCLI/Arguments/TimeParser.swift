import Foundation

/// Reads the value of every option that takes a point in time (`--since`, `--until`): one
/// parser, so that each accepts the same forms and words its errors alike.
///
/// - A time ago: `90s`, `15m`, `2h`, `3d`, `1w` (fractions allowed: `1.5h`).
/// - `now`, `today` (its midnight), `yesterday` (its midnight).
/// - A date and time: `2026-12-01`, `2026-12-01T10:00`, `2026-12-01T10:00:30`, with fractions
///   of a second (`10:00:30.250`), a space in place of `T`, and `Z` or an offset (`+02:00`,
///   `-0500`) at the end. Without a zone it is wall-clock time in the command's zone (the
///   machine's, or UTC with `--utc`).
enum TimeParser {
    /// The forms, as errors list them.
    static let accepted = "a time ago (90s, 15m, 2h, 3d, 1w), now, today, yesterday, or a date and time "
        + "(2026-12-01, 2026-12-01T10:00, 2026-12-01T10:00:30, with Z or an offset such as +02:00; "
        + "without one it is local time)"

    /// The date `text` names, or `nil` when it is none of the accepted forms.
    static func date(_ text: String, now: Date, timeZone: TimeZone) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "now": return now
        case "today": return midnight(of: now, daysBefore: 0, in: timeZone)
        case "yesterday": return midnight(of: now, daysBefore: 1, in: timeZone)
        default: break
        }
        if let ago = ValueParsers.relativeSeconds(trimmed) {
            guard ago <= ValueParsers.maximumAgeSeconds else { return nil }
            return now.addingTimeInterval(-ago)
        }
        return absolute(trimmed, timeZone: timeZone)
    }

    private static func midnight(of date: Date, daysBefore: Int, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let start = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: -daysBefore, to: start)
    }

    /// `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|±HH[:]MM]`.
    static func absolute(_ text: String, timeZone: TimeZone) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        if scanner.take("T") || scanner.take("t") || scanner.take(" ") {
            guard let h = scanner.digits(2), scanner.take(":"), let m = scanner.digits(2) else { return nil }
            (hour, minute) = (h, m)
            if scanner.take(":") {
                guard let s = scanner.digits(2) else { return nil }
                second = s
                if scanner.take(".") || scanner.take(",") {
                    let start = scanner.position
                    while scanner.digit() != nil {}
                    guard scanner.position > start else { return nil }
                    fraction = Double("0." + String(decoding: scanner.bytes[start..<scanner.position], as: UTF8.self)) ?? 0
                }
            }
        }
        var offset: Int?
        if scanner.take("Z") || scanner.take("z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let h = scanner.digits(2) else { return nil }
            _ = scanner.take(":")
            guard let m = scanner.digits(2), h <= 23, m <= 59 else { return nil }
            offset = sign * (h * 3600 + m * 60)
        }
        guard scanner.isAtEnd, (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 59
        else { return nil }

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // `isValidDate` turns away days a month does not have (2026-02-30) instead of rolling over.
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(fraction)
    }

    /// Reads ASCII bytes from the front.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { position == bytes.count }

        mutating func take(_ character: Character) -> Bool {
            guard let ascii = character.asciiValue, position < bytes.count, bytes[position] == ascii else { return false }
            position += 1
            return true
        }

        mutating func digit() -> Int? {
            guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else { return nil }
            defer { position += 1 }
            return Int(bytes[position] - UInt8(ascii: "0"))
        }

        /// Exactly `count` digits.
        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}
