/// Percent-decoding of a URL's path segments and query, done once and strictly: a `%` not
/// followed by two hex digits, or bytes that are not UTF-8, make the request a bad one rather
/// than something guessed at.
enum PercentDecoding {
    /// `text` with each `%XX` replaced by its byte, and `+` by a space when `plusIsSpace` (a
    /// query's form encoding); nil when an escape is malformed or the result is not UTF-8.
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        bytes(text.utf8, plusIsSpace: plusIsSpace).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes `raw` stands for, each `%XX` replaced by its byte once (and `+` by a space when
    /// `plusIsSpace`); nil when a `%` is not followed by two hex digits. The file browser reads
    /// these bytes before any UTF-8 check: it refuses control bytes by value first.
    static func bytes(_ raw: some Collection<UInt8>, plusIsSpace: Bool) -> [UInt8]? {
        let raw = Array(raw)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.count, let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return decoded
    }

    /// `text` percent-encoded for a query value or a path segment: everything but unreserved
    /// characters (RFC 3986) escaped.
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
