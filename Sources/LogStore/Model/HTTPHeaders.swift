// Helpers shared by the network value types and ``Redaction``: HTTP header names are
// case-insensitive (RFC 9110 §5.1), but the types keep the headers exactly as they were given, so
// every lookup goes through here.

extension Dictionary where Key == String, Value == String {
    /// The value of the header `name`, compared case-insensitively.
    ///
    /// An exact match wins, so the answer is deterministic even when a dictionary holds the same
    /// header under two spellings.
    func httpHeaderValue(_ name: String) -> String? {
        if let value = self[name] { return value }
        return first { httpHeaderNamesMatch($0.key, name) }?.value
    }
}

/// Whether two header names are the same but for case, as `lowercased()` compares them. Two
/// ASCII names are compared byte by byte without making lowercased copies: a missing header (the
/// usual `Content-Encoding`) had every name of the dictionary lowercased, twice per task stored.
func httpHeaderNamesMatch(_ first: String, _ second: String) -> Bool {
    var left = first.utf8.makeIterator()
    var right = second.utf8.makeIterator()
    while true {
        switch (left.next(), right.next()) {
        case (nil, nil):
            return true
        case (let a?, let b?) where a < 0x80 && b < 0x80:
            if a != b && asciiLowercase(a) != asciiLowercase(b) { return differentUnlessUnicode(first, second) }
        default:
            return differentUnlessUnicode(first, second)
        }
    }
}

/// Two names that differ in some ASCII byte or in length: different, unless one is not ASCII
/// and Unicode case mapping makes them equal (the Kelvin sign lowercases to an ASCII "k").
private func differentUnlessUnicode(_ first: String, _ second: String) -> Bool {
    guard first.utf8.contains(where: { $0 >= 0x80 }) || second.utf8.contains(where: { $0 >= 0x80 }) else {
        return false
    }
    return first.lowercased() == second.lowercased()
}

private func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
}

enum MediaType {
    /// The media type of a `Content-Type` value without its parameters, lowercased:
    /// `"Application/JSON; charset=utf-8"` → `"application/json"`. Nil when nothing is left.
    static func essence(of contentType: String) -> String? {
        // On the bytes: it runs for every request and response stored.
        let utf8 = contentType.utf8
        var type = utf8[..<(utf8.firstIndex(of: UInt8(ascii: ";")) ?? utf8.endIndex)]
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while let first = type.first, isWhitespace(first) { type = type.dropFirst() }
        while let last = type.last, isWhitespace(last) { type = type.dropLast() }
        guard !type.isEmpty else { return nil }
        guard type.allSatisfy({ $0 < 0x80 }) else { return Substring(type).lowercased() }
        return String(unsafeUninitializedCapacity: type.count) { buffer in
            var count = 0
            for byte in type {
                buffer[count] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                count += 1
            }
            return count
        }
    }

    /// Whether a media type (as returned by ``essence(of:)``) is JSON: `application/json`,
    /// `text/json` or any `+json` structured syntax suffix (RFC 6839), such as
    /// `application/problem+json`.
    /// The media type of an HTML form's fields: `name=value` pairs joined by `&`, encoded as
    /// query items are.
    static let form = "application/x-www-form-urlencoded"

    static func isJSON(_ essence: String) -> Bool {
        essence == "application/json" || essence == "text/json" || essence.hasSuffix("+json")
    }
}
