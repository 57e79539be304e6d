/// Whether stored bytes are UTF-8 as a Swift string holds it, checked without making the string:
/// a column another tool wrote may hold anything, and the exports write text from the column's
/// own bytes only when `String(decoding:as:)` would keep them as they are.
enum UTF8Check {
    /// Whether `bytes` are well-formed UTF-8 (RFC 3629: no overlong form, no surrogate, nothing
    /// past U+10FFFF), which `String(decoding:as:)` keeps byte for byte.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        var index = 0
        // ASCII, the common case, eight bytes at a time.
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
        }
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F  // no surrogates
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F  // nothing past U+10FFFF
            default: return false
            }
            guard index + length <= count, (lower...upper).contains(bytes[index + 1]) else { return false }
            for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }
}
