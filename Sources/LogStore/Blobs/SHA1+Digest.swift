import Foundation

extension SHA1 {
    /// A 20-byte SHA-1 digest.
    struct Digest: Hashable, Sendable, CustomStringConvertible {
        /// The five state words stored in big-endian byte order, so the struct's memory is the
        /// canonical 20 digest bytes.
        private let w0, w1, w2, w3, w4: UInt32

        /// Number of bytes in a digest.
        static let byteCount = 20

        init(state: State) {
            w0 = state.h0.bigEndian
            w1 = state.h1.bigEndian
            w2 = state.h2.bigEndian
            w3 = state.h3.bigEndian
            w4 = state.h4.bigEndian
        }

        private init(bigEndianWords w0: UInt32, _ w1: UInt32, _ w2: UInt32, _ w3: UInt32, _ w4: UInt32) {
            self.w0 = w0
            self.w1 = w1
            self.w2 = w2
            self.w3 = w3
            self.w4 = w4
        }

        /// Creates a digest from exactly 20 raw bytes (for example a BLOB column); `nil` for any other length.
        init?(bytes: some ContiguousBytes) {
            let words: (UInt32, UInt32, UInt32, UInt32, UInt32)? = bytes.withUnsafeBytes { raw in
                guard raw.count == Digest.byteCount else { return nil }
                return (
                    raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self),
                    raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self),
                    raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
                    raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self),
                    raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)
                )
            }
            guard let words else { return nil }
            self.init(bigEndianWords: words.0, words.1, words.2, words.3, words.4)
        }

        /// Parses the canonical form produced by `hex`: exactly 40 characters, each `0-9` or `a-f`.
        /// Anything else (upper case, other lengths, separators, path characters, non-ASCII) is rejected,
        /// so a parsed digest's `hex` is always identical to the input and safe to use as a file name.
        init?(hex: String) {
            let utf8 = hex.utf8
            guard utf8.count == 2 * Digest.byteCount else { return nil }
            var words: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0)
            var index = 0
            for char in utf8 {
                let nibble: UInt32
                switch char {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt32(char &- UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt32(char &- UInt8(ascii: "a") &+ 10)
                default: return nil
                }
                // Digits are read in big-endian (most significant first) order: 8 per word.
                switch index >> 3 {
                case 0: words.0 = (words.0 << 4) | nibble
                case 1: words.1 = (words.1 << 4) | nibble
                case 2: words.2 = (words.2 << 4) | nibble
                case 3: words.3 = (words.3 << 4) | nibble
                default: words.4 = (words.4 << 4) | nibble
                }
                index += 1
            }
            self.init(
                bigEndianWords: words.0.bigEndian, words.1.bigEndian, words.2.bigEndian,
                words.3.bigEndian, words.4.bigEndian)
        }

        /// Calls `body` with the 20 digest bytes.
        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            var copy = self
            return try Swift.withUnsafeBytes(of: &copy) { raw in
                try body(UnsafeRawBufferPointer(rebasing: raw[0..<Digest.byteCount]))
            }
        }

        /// The 20 digest bytes.
        var bytes: [UInt8] {
            withUnsafeBytes { Array($0) }
        }

        /// The digest as 40 lower-case hexadecimal characters (the `sha1sum` form).
        var hex: String {
            withUnsafeBytes { raw in
                String(unsafeUninitializedCapacity: 2 * Digest.byteCount) { out in
                    var o = 0
                    for byte in raw {
                        out[o] = Digest.hexDigit(byte >> 4)
                        out[o + 1] = Digest.hexDigit(byte & 0x0F)
                        o += 2
                    }
                    return o
                }
            }
        }

        var description: String { hex }

        @inline(__always)
        private static func hexDigit(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? nibble &+ UInt8(ascii: "0") : nibble &+ (UInt8(ascii: "a") &- 10)
        }
    }
}
