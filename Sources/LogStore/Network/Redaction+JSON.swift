import Foundation

extension Redaction {
    /// The body with the values of ``sensitiveJSONFields`` replaced by `"<private>"`, or the body
    /// itself, byte for byte, when it is not JSON, not valid JSON, or holds no sensitive key.
    /// A form body goes to ``redactForm(_:)`` instead.
    ///
    /// - Parameters:
    ///   - data: The body as sent or received.
    ///   - contentType: The body's media type (see ``NetworkResponse/contentType``); when nil, a
    ///     body whose first non-blank character is `{` or `[` is taken for JSON.
    func redactBody(_ data: Data, contentType: String?) -> Data {
        // With no field names configured (the default) nothing in a body can be hidden.
        guard !data.isEmpty, hasSensitiveFormFields else { return data }
        let essence = contentType.flatMap(MediaType.essence(of:))
        if essence == MediaType.form { return redactForm(data) }
        guard hasSensitiveJSONFields else { return data }
        if contentType != nil {
            guard let essence, MediaType.isJSON(essence) else { return data }
        } else {
            guard Self.looksLikeJSON(data) else { return data }
        }
        let ranges: [Range<Int>]? = data.withUnsafeBytes { buffer in
            // Most bodies hold none of the names: the one-pass pre-check skips the scanner.
            if let precheck = jsonKeyPrecheck, !precheck.mayHoldKey(in: buffer) { return nil }
            var scanner = JSONRedactionScanner(
                bytes: buffer, isSensitive: isSensitiveJSONField, asciiNames: jsonASCIIKeys)
            return scanner.sensitiveValueRanges()
        }
        guard let ranges, !ranges.isEmpty else { return data }
        return Self.replacing(ranges, in: data, with: Data("\"\(Self.placeholder)\"".utf8))
    }

    private static func looksLikeJSON(_ data: Data) -> Bool {
        for byte in data {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): return true
            default: return false
            }
        }
        return false
    }

    /// The data with each range (offsets from its start, sorted, disjoint) replaced by
    /// `replacement`: the placeholder as the body's format writes it.
    static func replacing(_ ranges: [Range<Int>], in data: Data, with replacement: Data) -> Data {
        var result = Data()
        result.reserveCapacity(data.count)
        var copied = data.startIndex
        for range in ranges {
            let start = data.startIndex + range.lowerBound
            result.append(data[copied..<start])
            result.append(replacement)
            copied = data.startIndex + range.upperBound
        }
        result.append(data[copied..<data.endIndex])
        return result
    }
}

/// A validating JSON (RFC 8259) scanner that finds the byte ranges of the values of sensitive
/// object keys, so they can be replaced without re-serialising the document.
///
/// It is iterative — containers are tracked on its own stack — so nesting depth costs heap
/// memory proportional to the input, never thread stack. Strings are not checked for valid
/// UTF-8 (a body that is JSON except for its encoding is still redacted). A plain ASCII key is
/// compared on its bytes; any other is decoded, escapes included, and compared as a string.
struct JSONRedactionScanner {
    private let bytes: UnsafeRawBufferPointer
    private let isSensitive: (String) -> Bool
    /// The ASCII sensitive names: what a plain ASCII key is compared with.
    private let asciiNames: Redaction.ASCIIKeyNames
    private var index = 0

    init(bytes: UnsafeRawBufferPointer, isSensitive: @escaping (String) -> Bool, asciiNames: Redaction.ASCIIKeyNames) {
        self.bytes = bytes
        self.isSensitive = isSensitive
        self.asciiNames = asciiNames
    }

    private enum Expectation { case value, key, afterValue }

    /// The ranges of sensitive values, in order, outermost only (a sensitive value inside another
    /// is covered by it); nil when the input is not valid JSON.
    mutating func sensitiveValueRanges() -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var containers: [Bool] = [] // true for an object, false for an array
        var redactedStart: Int?     // where the sensitive value being scanned begins
        var redactedDepth = 0       // the container depth at which it began
        var expectation = Expectation.value

        // A UTF-8 byte order mark is tolerated at the very start.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }

        while true {
            switch expectation {
            case .value:
                skipWhitespace()
                guard let byte = peek() else { return nil }
                switch byte {
                case UInt8(ascii: "{"):
                    index += 1
                    containers.append(true)
                    skipWhitespace()
                    if peek() == UInt8(ascii: "}") {
                        index += 1
                        containers.removeLast()
                        expectation = .afterValue
                    } else {
                        expectation = .key
                    }
                case UInt8(ascii: "["):
                    index += 1
                    containers.append(false)
                    skipWhitespace()
                    if peek() == UInt8(ascii: "]") {
                        index += 1
                        containers.removeLast()
                        expectation = .afterValue
                    } else {
                        expectation = .value
                    }
                case UInt8(ascii: "\""):
                    guard skipString() else { return nil }
                    expectation = .afterValue
                case UInt8(ascii: "t"):
                    guard scanLiteral("true") else { return nil }
                    expectation = .afterValue
                case UInt8(ascii: "f"):
                    guard scanLiteral("false") else { return nil }
                    expectation = .afterValue
                case UInt8(ascii: "n"):
                    guard scanLiteral("null") else { return nil }
                    expectation = .afterValue
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard scanNumber() else { return nil }
                    expectation = .afterValue
                default:
                    return nil
                }
            case .key:
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { return nil }
                // Keys inside a value already being hidden need no comparing.
                let isSensitiveKey: Bool
                if redactedStart == nil {
                    guard let sensitive = scanKey() else { return nil }
                    isSensitiveKey = sensitive
                } else {
                    guard skipString() else { return nil }
                    isSensitiveKey = false
                }
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                if isSensitiveKey {
                    redactedStart = index
                    redactedDepth = containers.count
                }
                expectation = .value
            case .afterValue:
                // A value just ended; if it is the sensitive one, its range is complete.
                if let start = redactedStart, containers.count == redactedDepth {
                    ranges.append(start..<index)
                    redactedStart = nil
                }
                skipWhitespace()
                guard let isObject = containers.last else {
                    return index == bytes.count ? ranges : nil
                }
                guard let byte = peek() else { return nil }
                index += 1
                switch byte {
                case UInt8(ascii: ","):
                    expectation = isObject ? .key : .value
                case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
                    containers.removeLast()
                    expectation = .afterValue
                default:
                    return nil
                }
            }
        }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func scanLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            return false
        }
        index += count
        return true
    }

    private mutating func scanNumber() -> Bool {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { return false }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), isDigit(digit) else { return false }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), isDigit(digit) else { return false }
            skipDigits()
        }
        return true
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    /// Skips a string starting at its opening quote and leaves the index after its closing one;
    /// `false` when it is malformed.
    private mutating func skipString() -> Bool {
        index += 1 // the opening quote
        var unused: [UInt8] = []
        while true {
            skipPlainBytes()
            guard let byte = peek() else { return false } // unterminated
            index += 1
            if byte == UInt8(ascii: "\"") { return true }
            // A backslash (anything else plain would have been skipped: a control character).
            guard byte == UInt8(ascii: "\\"), scanEscape(decoding: false, into: &unused) else { return false }
        }
    }

    /// Scans an object key starting at its opening quote, leaves the index after its closing
    /// one, and tells whether the key is sensitive; nil when it is malformed.
    private mutating func scanKey() -> Bool? {
        index += 1 // the opening quote
        let contentStart = index
        skipPlainBytes()
        if peek() == UInt8(ascii: "\"") {
            let key = UnsafeRawBufferPointer(rebasing: bytes[contentStart..<index])
            index += 1
            if !key.contains(where: { $0 >= 0x80 }) { return asciiNames.contains(key) }
            return isSensitive(String(decoding: key, as: UTF8.self))
        }
        // An escape (or a malformed key): decode it byte by byte.
        var decoded = Array(bytes[contentStart..<index])
        while let byte = peek() {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return isSensitive(String(decoding: decoded, as: UTF8.self))
            case UInt8(ascii: "\\"):
                guard scanEscape(decoding: true, into: &decoded) else { return nil }
            case 0x00..<0x20:
                return nil // control characters must be escaped
            default:
                decoded.append(byte)
            }
        }
        return nil // unterminated
    }

    /// Moves the index past the bytes a string holds as they are: neither its closing quote, a
    /// backslash nor a control character (which must be escaped).
    private mutating func skipPlainBytes() {
        // Eight bytes at a time while none of them ends the run: strings are most of a body's
        // bytes, and byte by byte this loop was the largest part of redacting one.
        while bytes.count - index >= 8,
            !Self.mayEndPlainRun(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        {
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return }
            index += 1
        }
    }

    /// Whether any of the eight bytes in `word` is a quote, a backslash or a control character
    /// (below 0x20); may also say so for a plain byte next to one (the caller then checks byte by
    /// byte), never the other way round.
    static func mayEndPlainRun(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        // A byte of `x` is zero, or `word`'s is below 0x20, only if its high bit ends up set
        // here (the classic "has a zero byte" test; bytes of 0x80 and above never set it).
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highBits != 0 }
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let control = (word &- ones &* 0x20) & ~word & highBits
        return hasZeroByte(quote) || hasZeroByte(backslash) || control != 0
    }

    /// Scans the escape after a backslash (the index is past it), appending what it stands for
    /// to `decoded` when `decoding`; `false` when it is not a valid escape.
    private mutating func scanEscape(decoding: Bool, into decoded: inout [UInt8]) -> Bool {
        guard let escaped = peek() else { return false }
        index += 1
        let simple: UInt8
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = escaped
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            guard let scalar = scanUnicodeEscape() else { return false }
            if decoding { decoded.append(contentsOf: String(Character(scalar)).utf8) }
            return true
        default: return false
        }
        if decoding { decoded.append(simple) }
        return true
    }

    /// Reads the four hex digits after `\u` (and a second `\uXXXX` when they form a surrogate
    /// pair). A lone surrogate is valid JSON syntax; it decodes to U+FFFD.
    private mutating func scanUnicodeEscape() -> Unicode.Scalar? {
        guard let first = scanHex4() else { return nil }
        let replacement = Unicode.Scalar(0xFFFD)!
        if (0xD800..<0xDC00).contains(first) {
            // A high surrogate: pair it with a following low surrogate if there is one.
            if bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                let save = index
                index += 2
                guard let second = scanHex4() else { return nil }
                if (0xDC00..<0xE000).contains(second) {
                    let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    return Unicode.Scalar(value) ?? replacement
                }
                index = save // not a pair: the next escape is scanned on its own
            }
            return replacement
        }
        return Unicode.Scalar(first) ?? replacement
    }

    private mutating func scanHex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
