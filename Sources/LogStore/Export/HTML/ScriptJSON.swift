/// Compact JSON for a `<script type="application/json">` block of the HTML page.
///
/// Escaped for that context as well as for JSON: `<`, `>` and `&` are written as `\u003c`,
/// `\u003e`, `\u0026`, so no logged text can spell `</script>` or `<!--` and end or alter the
/// block; U+2028 and U+2029 are escaped too (JavaScript string literals took them as line ends
/// before ES2019). The page reads a block with `JSON.parse(element.textContent)`, which gives
/// the original text back.
///
/// A row is appended to ``bytes`` piece by piece; the exporter writes and clears it per row.
struct ScriptJSON {
    var bytes: [UInt8] = []

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends ASCII punctuation or a literal (`[`, `,`, `null`) as is.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func null() { raw("null") }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    mutating func number(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func number(_ value: Int) { number(Int64(value)) }

    /// A finite number; `null` for NaN and infinities, which JSON cannot hold.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func string(_ text: String?) {
        guard let text else { return null() }
        bytes.append(UInt8(ascii: "\""))
        defer { bytes.append(UInt8(ascii: "\"")) }
        if text.utf8.allSatisfy(Self.isPlain) {
            // Most text needs no escaping: copy it in one go.
            bytes.append(contentsOf: text.utf8)
            return
        }
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            switch byte {
            case UInt8(ascii: "\""): raw(#"\""#)
            case UInt8(ascii: "\\"): raw(#"\\"#)
            case UInt8(ascii: "\n"): raw(#"\n"#)
            case UInt8(ascii: "\r"): raw(#"\r"#)
            case UInt8(ascii: "\t"): raw(#"\t"#)
            case 0..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"):
                escape(UInt16(byte))
            case 0xE2 where utf8.count >= 2 && utf8[utf8.startIndex] == 0x80
                && (utf8[utf8.startIndex + 1] == 0xA8 || utf8[utf8.startIndex + 1] == 0xA9):
                // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR.
                escape(utf8[utf8.startIndex + 1] == 0xA8 ? 0x2028 : 0x2029)
                utf8.removeFirst(2)
            default:
                bytes.append(byte)
            }
        }
    }

    /// A byte copied as is: printable ASCII other than the escaped ones, and any byte of a
    /// multi-byte character except the lead byte of U+2028/U+2029's sequence.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case 0..<0x20, UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "<"), UInt8(ascii: ">"),
             UInt8(ascii: "&"), 0xE2: false
        default: true
        }
    }

    /// A metadata value as JSON, keys sorted so equal metadata gives equal text.
    mutating func metadata(_ value: LogStore.MetadataValue) {
        switch value {
        case .string(let text): string(text)
        case .stringConvertible(let convertible): string(convertible.description)
        case .dictionary(let dictionary): metadata(dictionary)
        case .array(let values):
            raw("[")
            for (index, element) in values.enumerated() {
                if index > 0 { raw(",") }
                metadata(element)
            }
            raw("]")
        }
    }

    mutating func metadata(_ dictionary: LogStore.Metadata) {
        raw("{")
        for (index, key) in dictionary.keys.sorted().enumerated() {
            if index > 0 { raw(",") }
            string(key)
            raw(":")
            if let value = dictionary[key] { metadata(value) } else { null() }
        }
        raw("}")
    }

    /// String pairs as `[[key, value], …]`, sorted by key.
    mutating func pairs(_ dictionary: [String: String]) {
        raw("[")
        for (index, key) in dictionary.keys.sorted().enumerated() {
            if index > 0 { raw(",") }
            raw("[")
            string(key)
            raw(",")
            string(dictionary[key])
            raw("]")
        }
        raw("]")
    }

    /// `"key":` before a member of an object.
    mutating func key(_ name: StaticString) {
        raw("\"")
        raw(name)
        raw("\":")
    }

    private mutating func escape(_ unit: UInt16) {
        raw(#"\u"#)
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(Self.hexDigits[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }
}
