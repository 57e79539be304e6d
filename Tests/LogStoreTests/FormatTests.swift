import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// The renderings every command shares: timestamps, sizes, counts, escapes.
@Suite struct FormatTests {
    @Test func timestampsAreISOWithMilliseconds() {
        #expect(Format.timestamp(CLIFixtures.now) == "2025-06-15T15:06:40.000Z")
        #expect(Format.timestamp(CLIFixtures.now.addingTimeInterval(0.9996)) == "2025-06-15T15:06:41.000Z")
        #expect(Format.timestamp(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }

    @Test func sizesAndCountsReadWell() {
        #expect(Format.bytes(999) == "999 bytes")
        #expect(Format.bytes(12_345) == "12.3 KB")
        #expect(Format.bytes(20_660_224) == "20.7 MB")
        #expect(Format.count(1_234_567) == "1,234,567")
        #expect(Format.count(-1000) == "-1,000")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(Format.escaped("a\u{1B}[2Jb\tc\n") == "a\\u{1b}[2Jb\\tc\\n")
        #expect(Format.escaped("plain ünïcode") == "plain ünïcode")
    }
}
