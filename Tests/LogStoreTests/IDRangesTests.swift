import Foundation
import Testing

@testable import LogStore

/// The id ranges of a history row: built in any order, stored compactly, and read back exactly;
/// bytes the writer could not have written are refused, not trusted.
@Suite("ID ranges")
struct IDRangesTests {
    @Test func insertsInAnyOrderCoalesceIntoDisjointRanges() {
        var ranges = IDRanges()
        for id in [5, 6, 7, 1, 3, 2, 10, 9, 20] as [Int64] { ranges.insert(id) }
        #expect(ranges.ranges == [1...3, 5...7, 9...10, 20...20])
        #expect(ranges.count == 9)
        #expect(Array(ranges) == [1, 2, 3, 5, 6, 7, 9, 10, 20])
        #expect(ranges.contains(6) && !ranges.contains(8) && !ranges.contains(0) && !ranges.contains(21))
        ranges.insert(4 ... 8)
        #expect(ranges.ranges == [1...10, 20...20])
        #expect(ranges.count == 11)
    }

    @Test func aBatchOfThousandsIsAFewBytes() throws {
        var ranges = IDRanges()
        for id in Int64(1_000_000) ..< 1_004_096 { ranges.insert(id) }
        #expect(ranges.ranges.count == 1)
        #expect(ranges.encoded.count <= 6)
        #expect(IDRanges(encoded: ranges.encoded) == ranges)
    }

    @Test func randomSetsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let ids = (0..<Int.random(in: 0...300, using: &generator)).map { _ in Int64.random(in: 0...5_000, using: &generator) }
            let ranges = IDRanges(ids)
            #expect(Array(ranges) == Array(Set(ids)).sorted())
            #expect(IDRanges(encoded: ranges.encoded) == ranges)
        }
    }

    @Test(arguments: [
        [0x80] as [UInt8],  // a varint cut short
        [0x00],  // a gap without its length
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x00],  // past 64 bits
        [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00],  // an id past 2^48
    ])
    func bytesTheWriterCouldNotHaveWrittenAreRefused(bytes: [UInt8]) {
        #expect(IDRanges(encoded: bytes) == nil)
    }
}
