import Foundation
import Testing
@testable import LogStoreCLI

/// The one parser of every option that takes a time (`--since`, `--until`).
@Suite struct TimeParsingTests {
    /// 2025-06-15T15:06:40Z, a Sunday.
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let paris = TimeZone(identifier: "Europe/Paris") ?? TimeZone(secondsFromGMT: 7200)!

    func date(_ text: String, zone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> Date {
        try ValueParsers.date(text, option: "since", now: Self.now, timeZone: zone)
    }

    @Test func relativeTimes() throws {
        #expect(try date("90s") == Self.now.addingTimeInterval(-90))
        #expect(try date("15m") == Self.now.addingTimeInterval(-900))
        #expect(try date("2h") == Self.now.addingTimeInterval(-7200))
        #expect(try date("3d") == Self.now.addingTimeInterval(-3 * 86_400))
        #expect(try date("1w") == Self.now.addingTimeInterval(-604_800))
        #expect(try date("1.5h") == Self.now.addingTimeInterval(-5400))
        #expect(throws: UsageError.self) { try date("m15") }
    }

    @Test func wordsCountInTheCommandsZone() throws {
        #expect(try date("now") == Self.now)
        #expect(try date("today") == Date(timeIntervalSince1970: 1_749_945_600))  // 2025-06-15T00:00Z
        #expect(try date("yesterday") == Date(timeIntervalSince1970: 1_749_945_600 - 86_400))
        // Midnight in Paris (UTC+2 in June) is 22:00 UTC the day before.
        #expect(try date("today", zone: Self.paris) == Date(timeIntervalSince1970: 1_749_945_600 - 7200))
    }

    @Test func absoluteTimesWithAndWithoutAZone() throws {
        let midnight = Date(timeIntervalSince1970: 1_749_945_600)
        #expect(try date("2025-06-15") == midnight)
        #expect(try date("2025-06-15T15:06") == Self.now.addingTimeInterval(-40))
        #expect(try date("2025-06-15T15:06:40") == Self.now)
        #expect(try date("2025-06-15 15:06:40") == Self.now)
        #expect(try date("2025-06-15T15:06:40Z") == Self.now)
        #expect(try date("2025-06-15T15:06:40.5Z") == Self.now.addingTimeInterval(0.5))
        #expect(try date("2025-06-15T15:06:40.500Z") == Self.now.addingTimeInterval(0.5))
        #expect(try date("2025-06-15T17:06:40+02:00") == Self.now)
        #expect(try date("2025-06-15T10:06:40-0500") == Self.now)
        // Without a zone: wall-clock time where the command runs; with one, the zone given.
        #expect(try date("2025-06-15T17:06:40", zone: Self.paris) == Self.now)
        #expect(try date("2025-06-15T15:06:40Z", zone: Self.paris) == Self.now)
        #expect(try date("2025-06-15", zone: Self.paris) == midnight.addingTimeInterval(-7200))
    }

    @Test func errorsNameTheOptionTheValueAndTheForms() {
        for bad in ["last tuesday", "2025-13-01", "2025-02-30", "2025-06-15T25:00", "2025-06-15T10", "15x", "-5m", ""] {
            do {
                _ = try date(bad)
                Issue.record("'\(bad)' was accepted")
            } catch {
                #expect(error.message.hasPrefix("invalid value '\(bad)' for --since: expected a time ago (90s"), "\(bad)")
                #expect(error.message.contains("yesterday"))
            }
        }
    }

    /// The error of `text` in `zone`, or `nil` when it was accepted.
    func rejection(_ text: String, zone: TimeZone = CommandEnvironment.utc) -> String? {
        do {
            _ = try date(text, zone: zone)
            return nil
        } catch {
            return error.message
        }
    }

    /// Seconds since 1970, to compare with instants worked out by hand.
    func at(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: seconds) }

    @Test func offsetsAreTakenOffByHandAndBoundedAtFourteenHours() throws {
        // The widest real offsets still read, whatever the command's zone.
        #expect(try date("2025-06-16T05:06:40+14:00", zone: Self.paris) == Self.now)
        #expect(try date("2025-06-15T03:06:40-12:00", zone: Self.paris) == Self.now)
        #expect(try date("2025-06-15T20:36:40+0530") == Self.now)
        // Past ±14:00 is a typo: never silently local time (TimeZone(secondsFromGMT:) is nil past ±18:00).
        for bad in ["2025-06-15T15:06:40+19:00", "2025-06-15T15:06:40-23:59", "2025-06-15T15:06:40+18:00", "2025-06-15T15:06+14:30"] {
            let message = try #require(rejection(bad, zone: Self.paris), "\(bad) was accepted")
            #expect(message.hasPrefix("invalid value '\(bad)' for --since: the offset "), "\(message)")
            #expect(message.contains("beyond ±14:00"))
        }
    }

    @Test func aTimeTheClocksSkippedSaysSo() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        // 2026-03-29: at 02:00 the clocks in Paris moved to 03:00.
        let message = try #require(rejection("2026-03-29T02:30", zone: paris))
        #expect(message.hasPrefix("invalid value '2026-03-29T02:30' for --since: "))
        #expect(message.contains("does not exist in Europe/Paris (the clocks moved forward)"), "\(message)")
        // Either side of the gap reads as usual; with an offset the time is unambiguous.
        #expect(try date("2026-03-29T01:59", zone: paris) == at(1_774_745_940))
        #expect(try date("2026-03-29T03:00", zone: paris) == at(1_774_746_000))
        #expect(try date("2026-03-29T02:30+01:00", zone: paris) == at(1_774_747_800))
        // In UTC no time is skipped.
        #expect(try date("2026-03-29T02:30") == at(1_774_751_400))
    }

    @Test func aRepeatedHourTakesTheEarlierInstant() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        // 2026-10-25: at 03:00 summer time the clocks went back to 02:00, so 02:30 came twice,
        // at 00:30Z (summer time) and 01:30Z: the first is taken.
        #expect(try date("2026-10-25T02:30", zone: paris) == at(1_792_888_200))
        #expect(try date("2026-10-25T02:30+01:00", zone: paris) == at(1_792_891_800))
        #expect(try date("2026-10-25T01:59", zone: paris) == at(1_792_886_340))
        #expect(try date("2026-10-25T03:00", zone: paris) == at(1_792_893_600))
    }

    @Test func todayAndYesterdayAreCalendarDaysAcrossAClockChange() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        func day(_ word: String, now: TimeInterval) throws(UsageError) -> Date {
            try ValueParsers.date(word, option: "since", now: at(now), timeZone: paris)
        }
        // On the 23-hour day itself (2026-03-29, 10:00Z): its midnight was still winter time.
        #expect(try day("today", now: 1_774_778_400) == at(1_774_738_800))  // 2026-03-28T23:00Z
        #expect(try day("yesterday", now: 1_774_778_400) == at(1_774_652_400))  // 2026-03-27T23:00Z
        // The day after: yesterday began 23 hours before today, not 24.
        #expect(try day("today", now: 1_774_864_800) == at(1_774_821_600))  // 2026-03-29T22:00Z
        #expect(try day("yesterday", now: 1_774_864_800) == at(1_774_738_800))
        // The day after the 25-hour day (2026-10-25): yesterday began 25 hours before today.
        #expect(try day("today", now: 1_793_008_800) == at(1_792_969_200))  // 2026-10-25T23:00Z
        #expect(try day("yesterday", now: 1_793_008_800) == at(1_792_879_200))  // 2026-10-24T22:00Z
    }

    @Test func humanOutputShowsTheZone() {
        #expect(Format.timestamp(Self.now, in: CommandEnvironment.utc) == "2025-06-15T15:06:40.000Z")
        #expect(Format.timestamp(Self.now, in: Self.paris) == "2025-06-15T17:06:40.000+02:00")
        #expect(Format.timestamp(Self.now, in: TimeZone(secondsFromGMT: -(5 * 3600 + 1800))!) == "2025-06-15T09:36:40.000-05:30")
        // What it prints reads back as the same instant.
        #expect(ValueParsers.isoDate(Format.timestamp(Self.now, in: Self.paris)) == Self.now)
    }
}
