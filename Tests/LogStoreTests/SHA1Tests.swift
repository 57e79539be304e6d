import Foundation
import Testing

@testable import LogStore

@Suite("SHA-1")
struct SHA1Tests {

    // MARK: FIPS 180 examples

    @Test func fipsOneBlockMessage() {
        #expect(SHA1.hash(Array("abc".utf8)).hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func fipsTwoBlockMessage() {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(SHA1.hash(Array(message.utf8)).hex == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func fipsOneMillionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA1.hash(message).hex == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func oneMillionAFedInSmallPieces() {
        var hasher = SHA1()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(piece) }
        #expect(hasher.finalize().hex == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func emptyMessage() {
        let expected = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
        #expect(SHA1.hash([UInt8]()).hex == expected)
        #expect(SHA1.hash(Data()).hex == expected)
        #expect(SHA1().finalize().hex == expected)
    }

    @Test func dataAndArrayAgree() {
        let bytes = Array("The quick brown fox jumps over the lazy dog".utf8)
        #expect(SHA1.hash(bytes).hex == "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12")
        #expect(SHA1.hash(Data(bytes)) == SHA1.hash(bytes))
        #expect(bytes.withUnsafeBytes { SHA1.hash($0) } == SHA1.hash(bytes))
    }

    // MARK: Incremental use

    @Test func incrementalUpdatesAtOddBoundariesMatchOneShot() {
        var generator = SeededRandom(seed: 0x5EED)
        let message = sha1TestBytes(count: 10_000, using: &generator)
        let expected = SHA1.hash(message)
        let splitPatterns: [[Int]] = [
            [1], [3], [7], [55], [56], [63], [64], [65], [127], [1000],
            [1, 62, 1, 64, 3], [63, 1], [0, 5, 0, 59, 0],
        ]
        for pattern in splitPatterns {
            var hasher = SHA1()
            var offset = 0
            var index = 0
            while offset < message.count {
                let size = min(pattern[index % pattern.count], message.count - offset)
                hasher.update(message[offset..<(offset + size)])
                offset += size
                index += 1
            }
            #expect(hasher.finalize() == expected, "split pattern \(pattern)")
        }
    }

    @Test func everySplitPointOfAShortMessage() {
        var generator = SeededRandom(seed: 7)
        let message = sha1TestBytes(count: 200, using: &generator)
        let expected = SHA1.hash(message)
        for split in 0...message.count {
            var hasher = SHA1()
            hasher.update(message[0..<split])
            hasher.update(message[split...])
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
    }

    @Test func finalizeDoesNotChangeTheHasher() {
        var hasher = SHA1()
        hasher.update(Array("ab".utf8))
        #expect(hasher.finalize() == SHA1.hash(Array("ab".utf8)))
        hasher.update(Array("c".utf8))
        #expect(hasher.finalize().hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    // MARK: Against the system's sha1sum

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sha1sum")),
        arguments: [0, 1, 55, 56, 63, 64, 65, (1 << 20) + 7])
    func matchesSha1sum(length: Int) throws {
        var generator = SeededRandom(seed: UInt64(length) &+ 0xC0FFEE)
        let data = sha1TestBytes(count: length, using: &generator)
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("logstore-sha1-\(UUID().uuidString).bin")
        try Data(data).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        let result = try runProcess("/usr/bin/sha1sum", [url.path])
        #expect(result.status == 0, "\(result.standardError)")
        let expected = String(result.standardOutput.prefix(40))
        #expect(SHA1.hash(data).hex == expected)
    }

    // MARK: Digest

    @Test func digestHexRoundTrip() throws {
        let digest = SHA1.hash(Array("abc".utf8))
        let parsed = try #require(SHA1.Digest(hex: digest.hex))
        #expect(parsed == digest)
        #expect(parsed.hex == digest.hex)
        #expect(digest.description == digest.hex)
        #expect(digest.bytes.count == 20)
        #expect(digest.bytes.prefix(4) == [0xA9, 0x99, 0x3E, 0x36])
        #expect(SHA1.Digest(bytes: digest.bytes) == digest)
        #expect(SHA1.Digest(bytes: [UInt8](repeating: 0, count: 19)) == nil)
        #expect(Set([digest, parsed, SHA1.hash([UInt8]())]).count == 2)
    }

    @Test func digestHexAcceptsAllLowerCaseDigits() throws {
        let text = "0123456789abcdef0123456789abcdef01234567"
        let digest = try #require(SHA1.Digest(hex: text))
        #expect(digest.hex == text)
    }

    @Test(arguments: [
        "A9993E364706816ABA3E25717850C26C9CD0D89D",  // upper case
        "a9993e364706816aba3e25717850c26c9cd0d89D",  // one upper-case digit
        "a9993e364706816aba3e25717850c26c9cd0d89",  // 39 characters
        "a9993e364706816aba3e25717850c26c9cd0d89d0",  // 41 characters
        "../x993e364706816aba3e25717850c26c9cd0d8",  // path traversal, 40 characters
        "../../../../../../../../../../etc/passwd",  // 40 characters
        "g9993e364706816aba3e25717850c26c9cd0d89d",  // non-hex letter
        "a9993e36-706816aba3e25717850c26c9cd0d89d",  // separator
        " a9993e364706816aba3e25717850c26c9cd0d89",  // leading space
        "a9993e364706816aba3e25717850c26c9cd0d89\n",  // trailing newline
        "a9993e364706816aba3e25717850c26c9cd0d8é",  // non-ASCII (40 UTF-8 bytes)
        "0x993e364706816aba3e25717850c26c9cd0d89d",
        "",
    ])
    func digestHexRejects(_ text: String) {
        #expect(SHA1.Digest(hex: text) == nil)
    }
}

// MARK: - Helpers (file-private: other test files may define their own)

/// Deterministic generator so failures reproduce.

private func sha1TestBytes(count: Int, using generator: inout SeededRandom) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < raw.count {
            var word = generator.next()
            let take = min(8, raw.count - offset)
            withUnsafeBytes(of: &word) { wordBytes in
                for i in 0..<take { raw[offset + i] = wordBytes[i] }
            }
            offset += take
        }
    }
    return bytes
}
