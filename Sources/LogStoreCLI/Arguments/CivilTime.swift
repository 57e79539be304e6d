import Foundation

/// A wall-clock date and time with no zone, and the instants it names in a zone.
///
/// Done by hand (days from the civil date, offsets from `TimeZone.secondsFromGMT(for:)`) rather
/// than through `Calendar`, so that the hours a clock change skips or repeats are decided here,
/// the same on every platform:
/// - a time the clocks skipped (02:30 on the spring change in Paris) names no instant;
/// - a time they repeated (02:30 on the autumn change) names two, and the earlier one is taken
///   (the first 02:30, still in summer time), so `--since` then includes the whole repeated hour.
struct CivilTime: Equatable {
    var year: Int, month: Int, day: Int
    var hour = 0, minute = 0, second = 0

    /// The seconds since 1970 of these fields read as UTC.
    var secondsAsUTC: Int {
        Self.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The earliest instant at which a clock in `zone` shows these fields; `nil` when a clock
    /// change skipped them.
    func earliestInstant(in zone: TimeZone) -> Int? {
        let wall = secondsAsUTC
        // Zones change their offset at most once in a day or so: the offsets a day either side
        // are the ones these fields could be read with.
        let offsets = Set([-86_400, 0, 86_400].map { Self.offset(of: wall + $0, in: zone) })
        return offsets.map { wall - $0 }.filter { Self.offset(of: $0, in: zone) + $0 == wall }.min()
    }

    /// The first instant of the local calendar day `daysBefore` days before the one `date` falls
    /// on in `zone`: a calendar day, so 23 or 25 hours long across a clock change. When the
    /// clocks skip midnight itself, the day starts when they resume.
    static func startOfDay(of date: Date, daysBefore: Int, in zone: TimeZone) -> Date {
        let instant = Int(date.timeIntervalSince1970.rounded(.down))
        let local = instant + offset(of: instant, in: zone)
        let (year, month, day) = civil(days: local.floorDivided(by: 86_400) - daysBefore)
        let midnight = CivilTime(year: year, month: month, day: day)
        // Read with the offset in force before a skip, a skipped midnight lands on the skip's end.
        let start = midnight.earliestInstant(in: zone)
            ?? midnight.secondsAsUTC - offset(of: midnight.secondsAsUTC - 86_400, in: zone)
        return Date(timeIntervalSince1970: TimeInterval(start))
    }

    /// The days in `month` of `year` (proleptic Gregorian calendar).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func offset(of seconds: Int, in zone: TimeZone) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a count of days since 1970-01-01 (the inverse of ``days(year:month:day:)``).
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int {
    /// Division rounding towards minus infinity (days before 1970 stay on their day).
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
