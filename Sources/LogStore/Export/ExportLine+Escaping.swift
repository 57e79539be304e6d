/// Escaping of logged strings for the context they land in. Every logged string is
/// attacker-controlled: a newline would forge a line, an ANSI escape would drive the reader's
/// terminal, a quote would end a JSON string early.
extension ExportLine {
    /// Where an escaped string goes.
    enum Context {
        /// A text export's line: control characters (C0, DEL, C1), the Unicode line and paragraph
        /// separators and the bidirectional overrides (which can make a line read differently
        /// from what it holds) become `\n`, `\r`, `\t` or `\u{1b}`; everything else stays as is.
        case text
        /// A quoted value in a text export's line: as ``text``, and `"` and `\` get a backslash.
        case quotedText
        /// The inside of a JSON string: `"`, `\` and every control character escaped as RFC 8259
        /// asks, plus what ``text`` escapes (U+2028 / U+2029, which JavaScript once took as line
        /// ends; DEL, C1 and the overrides, so that `cat` of the file is as safe as the text's).
        case json
    }

    /// Appends `text`, escaped for `context`. Runs of bytes that need nothing are copied whole,
    /// so plain ASCII costs one scan and one copy.
    mutating func append(_ text: String, escapedFor context: Context) {
        var text = text
        text.withUTF8 { utf8 in
            let stops = context == .json ? Self.jsonStops : context == .text ? Self.textStops : Self.quotedTextStops
            var runStart = 0
            var index = 0
            let count = utf8.count
            while index < count {
                let byte = utf8[index]
                guard stops[Int(byte)] else {
                    index += 1
                    continue
                }
                // A lead byte of a multi-byte scalar: only a few of those scalars are escaped.
                let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                guard index + length <= count else { break }
                let scalar = Self.scalar(utf8, at: index, length: length)
                guard Self.isEscaped(scalar, in: context) else {
                    index += length
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(scalar, context: context)
                index += length
                runStart = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    private mutating func appendEscape(_ scalar: UInt32, context: Context) {
        switch (scalar, context) {
        case (0x22, _): append("\\\"")
        case (0x5C, _): append("\\\\")
        case (0x0A, _): append("\\n")
        case (0x0D, _): append("\\r")
        case (0x09, _): append("\\t")
        case (0x08, .json): append("\\b")
        case (0x0C, .json): append("\\f")
        case (_, .json):
            append("\\u")
            for shift in stride(from: 12, through: 0, by: -4) { bytes.append(Self.hexDigits[Int(scalar >> UInt32(shift) & 0xF)]) }
        case (_, .text), (_, .quotedText):
            append("\\u{")
            var digits: [UInt8] = []
            var rest = scalar
            repeat {
                digits.append(Self.hexDigits[Int(rest & 0xF)])
                rest >>= 4
            } while rest > 0
            bytes.append(contentsOf: digits.reversed())
            append("}")
        }
    }

    private static func isEscaped(_ scalar: UInt32, in context: Context) -> Bool {
        if scalar < 0x20 || scalar == 0x7F || scalar == 0x2028 || scalar == 0x2029 { return true }
        switch context {
        case .json, .quotedText:
            if scalar == 0x22 || scalar == 0x5C { return true }
            fallthrough
        case .text:
            return (0x80...0x9F).contains(scalar) || (0x202A...0x202E).contains(scalar)
                || (0x2066...0x2069).contains(scalar)
        }
    }

    /// The scalar encoded at `index` (valid UTF-8: a Swift string holds nothing else).
    private static func scalar(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int, length: Int) -> UInt32 {
        let lead = UInt32(utf8[index])
        switch length {
        case 1: return lead
        case 2: return (lead & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
        case 3: return (lead & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)
        default:
            return (lead & 0x07) << 18 | UInt32(utf8[index + 1] & 0x3F) << 12 | UInt32(utf8[index + 2] & 0x3F) << 6
                | UInt32(utf8[index + 3] & 0x3F)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The bytes that may start something to escape: ASCII controls and DEL, the quote and
    /// backslash where they matter, and the lead bytes of U+0080–U+009F (0xC2) and of
    /// U+2000–U+2FFF (0xE2), where the separators and overrides live.
    private static let textStops = stops(quoteAndBackslash: false)
    private static let quotedTextStops = stops(quoteAndBackslash: true)
    private static let jsonStops = quotedTextStops

    private static func stops(quoteAndBackslash: Bool) -> [Bool] {
        var table = [Bool](repeating: false, count: 256)
        for byte in 0..<0x20 { table[byte] = true }
        table[0x7F] = true
        table[0xC2] = true
        table[0xE2] = true
        if quoteAndBackslash {
            table[0x22] = true
            table[0x5C] = true
        }
        return table
    }
}
