/// The one scanner that escapes logged text, for every format (rules in ``EscapeRules``): it
/// writes straight into the output buffer, copying each run of bytes that needs nothing at
/// once, so plain ASCII costs one scan and one copy and no string is allocated.
extension [UInt8] {
    /// Appends `text`, escaped by `rules`.
    mutating func append(escaping text: String, _ rules: EscapeRules) {
        var text = text
        text.withUTF8 { append(escaping: $0, rules) }
    }

    /// Appends `"text"`, escaped by `rules` (a JSON string, or a quoted value of a text line).
    mutating func append(quoting text: String, _ rules: EscapeRules) {
        append(UInt8(ascii: "\""))
        append(escaping: text, rules)
        append(UInt8(ascii: "\""))
    }

    /// Appends stored bytes (a column, which another tool may have written), escaped by `rules`:
    /// well-formed UTF-8 as it is, anything else repaired as `String(decoding:as:)` repairs it
    /// (U+FFFD for each bad sequence), so the line says what the row read as a `String` says.
    mutating func append(escapingStored bytes: UnsafeBufferPointer<UInt8>, _ rules: EscapeRules) {
        guard UTF8Check.isValid(bytes) else {
            return append(escaping: String(decoding: bytes, as: UTF8.self), rules)
        }
        append(escaping: bytes, rules)
    }

    /// Appends the UTF-8 text in `utf8`, escaped by `rules`. The caller has checked that it is
    /// UTF-8 (a Swift string holds nothing else).
    mutating func append(escaping utf8: UnsafeBufferPointer<UInt8>, _ rules: EscapeRules) {
        rules.stops.withUnsafeBufferPointer { stops in
            let count = utf8.count
            var runStart = 0
            var index = 0
            while index < count {
                let byte = utf8[index]
                guard stops[Int(byte)] else {
                    index += 1
                    continue
                }
                // Only 0xC2 and 0xE2 start a multi-byte scalar among the stops.
                let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : 3
                guard index + length <= count else { break }
                let scalar: UInt32 = switch length {
                case 1: UInt32(byte)
                case 2: UInt32(byte & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
                default: UInt32(byte & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)
                }
                guard rules.escapes(scalar) else {
                    index += length
                    continue
                }
                append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(scalar, rules.notation)
                index += length
                runStart = index
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    private mutating func appendEscape(_ scalar: UInt32, _ notation: EscapeRules.Notation) {
        append(UInt8(ascii: "\\"))
        switch (scalar, notation) {
        case (0x22, _), (0x5C, _): append(UInt8(scalar))
        case (0x0A, _): append(UInt8(ascii: "n"))
        case (0x0D, _): append(UInt8(ascii: "r"))
        case (0x09, _): append(UInt8(ascii: "t"))
        case (0x08, .json): append(UInt8(ascii: "b"))
        case (0x0C, .json): append(UInt8(ascii: "f"))
        case (_, .json):
            append(UInt8(ascii: "u"))
            for shift in stride(from: 12, through: 0, by: -4) { append(Self.hexDigit(scalar >> UInt32(shift))) }
        case (_, .text):
            append(UInt8(ascii: "u"))
            append(UInt8(ascii: "{"))
            var shift = 28
            while shift > 0, scalar >> UInt32(shift) == 0 { shift -= 4 }
            for step in stride(from: shift, through: 0, by: -4) { append(Self.hexDigit(scalar >> UInt32(step))) }
            append(UInt8(ascii: "}"))
        }
    }

    /// The lowercase hex digit of the low four bits.
    private static func hexDigit(_ value: UInt32) -> UInt8 {
        let nibble = UInt8(value & 0xF)
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
