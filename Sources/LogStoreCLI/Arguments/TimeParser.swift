import Foundation

/// Reads the value of every option that takes a point in time (`--since`, `--until`): one
/// parser, so that each accepts the same forms and words its errors alike.
///
/// - A time ago: `90s`, `15m`, `2h`, `3d`, `1w` (fractions allowed: `1.5h`).
/// - `now`, `today` (its midnight), `yesterday` (its midnight).
/// - A date and time: `2026-12-01`, `2026-12-01T10:00`, `2026-12-01T10:00:30`, with fractions
///   of a second (`10:00:30.250`), a space in place of `T`, and `Z` or an offset (`+02:00`,
///   `-0500`, at most ±14:00) at the end. Without a zone it is wall-clock time in the command's
///   zone (the machine's, or UTC with `--utc`); see ``CivilTime`` for the hours a clock change
///   skips or repeats.
enum TimeParser {
    /// The forms, as errors list them.
    static let accepted = "a time ago (90s, 15m, 2h, 3d, 1w), now, today, yesterday, or a date and time "
        + "(2026-12-01, 2026-12-01T10:00, 2026-12-01T10:00:30, with Z or an offset such as +02:00; "
        + "without one it is local time)"

    /// The widest offset a real zone uses (UTC+14:00, Line Islands; the westmost is −12:00):
    /// anything beyond is a typo, not a place.
    static let maximumOffsetSeconds = 14 * 3600

    /// Why a value is not a time, worded to follow "invalid value '…' for --since: ".
    enum Rejection: Error, Equatable {
        /// None of the accepted forms.
        case unreadable
        /// An explicit offset beyond ±14:00 (the text as typed).
        case offsetOutOfRange(String)
        /// A wall-clock time that a clock change skipped in the zone named.
        case skipped(zone: String)

        var reason: String {
            switch self {
            case .unreadable: "expected \(TimeParser.accepted)"
            case .offsetOutOfRange(let offset):
                "the offset \(offset) is beyond ±14:00, the widest a time zone uses"
            case .skipped(let zone):
                "that time does not exist in \(Format.escaped(zone)) (the clocks moved forward); "
                    + "give it with an offset, or a time outside the change"
            }
        }
    }

    /// The date `text` names.
    static func date(_ text: String, now: Date, timeZone: TimeZone) throws(Rejection) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "now": return now
        case "today": return CivilTime.startOfDay(of: now, daysBefore: 0, in: timeZone)
        case "yesterday": return CivilTime.startOfDay(of: now, daysBefore: 1, in: timeZone)
        default: break
        }
        if let ago = ValueParsers.relativeSeconds(trimmed) {
            guard ago <= ValueParsers.maximumAgeSeconds else { throw .unreadable }
            return now.addingTimeInterval(-ago)
        }
        return try absolute(trimmed, timeZone: timeZone)
    }

    /// `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|±HH[:]MM]`.
    static func absolute(_ text: String, timeZone: TimeZone) throws(Rejection) -> Date {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2)
        else { throw .unreadable }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        if scanner.take("T") || scanner.take("t") || scanner.take(" ") {
            guard let h = scanner.digits(2), scanner.take(":"), let m = scanner.digits(2) else { throw .unreadable }
            (hour, minute) = (h, m)
            if scanner.take(":") {
                guard let s = scanner.digits(2) else { throw .unreadable }
                second = s
                if scanner.take(".") || scanner.take(",") {
                    let start = scanner.position
                    while scanner.digit() != nil {}
                    guard scanner.position > start,
                        let value = Double("0." + String(decoding: scanner.bytes[start..<scanner.position], as: UTF8.self))
                    else { throw .unreadable }
                    fraction = value
                }
            }
        }
        var offset: Int?
        let offsetStart = scanner.position
        if scanner.take("Z") || scanner.take("z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let h = scanner.digits(2) else { throw .unreadable }
            _ = scanner.take(":")
            guard let m = scanner.digits(2), m <= 59 else { throw .unreadable }
            offset = sign * (h * 3600 + m * 60)
        }
        guard scanner.isAtEnd, (1...12).contains(month), (1...CivilTime.daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 59
        else { throw .unreadable }
        let fields = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)

        let seconds: Int
        if let offset {
            // The fields are read as UTC and the offset taken off by hand: a `TimeZone` made from
            // an offset is `nil` past ±18:00, and falling back to local time would be silently wrong.
            guard abs(offset) <= maximumOffsetSeconds else {
                throw .offsetOutOfRange(String(decoding: scanner.bytes[offsetStart...], as: UTF8.self))
            }
            seconds = fields.secondsAsUTC - offset
        } else {
            guard let local = fields.earliestInstant(in: timeZone) else { throw .skipped(zone: timeZone.identifier) }
            seconds = local
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
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
