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
        #expect(try date("2025-06-15T15:06:40.5Z") == Self.now.addingTimeInterval(0.5))
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

    @Test func humanOutputShowsTheZone() {
        #expect(Format.timestamp(Self.now, in: CommandEnvironment.utc) == "2025-06-15T15:06:40.000Z")
        #expect(Format.timestamp(Self.now, in: Self.paris) == "2025-06-15T17:06:40.000+02:00")
        #expect(Format.timestamp(Self.now, in: TimeZone(secondsFromGMT: -(5 * 3600 + 1800))!) == "2025-06-15T09:36:40.000-05:30")
        // What it prints reads back as the same instant.
        #expect(ValueParsers.isoDate(Format.timestamp(Self.now, in: Self.paris)) == Self.now)
    }
}
