/// Compact JSON for a `<script type="application/json">` block of the HTML page.
///
/// Escaped for that context as well as for JSON (``EscapeRules/scriptJSON``): `<`, `>` and `&`
/// are written as `\u003c`, `\u003e`, `\u0026`, so no logged text can spell `</script>` or `<!--`
/// and end or alter the block; U+2028 and U+2029 are escaped too (JavaScript string literals took
/// them as line ends before ES2019). The page reads a block with
/// `JSON.parse(element.textContent)`, which gives the original text back.
///
/// A row is appended to ``bytes`` piece by piece; the exporter writes and clears it per row.
struct ScriptJSON {
    var bytes: [UInt8] = []

    /// Appends ASCII punctuation or a literal (`[`, `,`, `null`) as is.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func null() { raw("null") }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    mutating func number(_ value: Int64) {
        bytes.append(decimal: value)
    }

    mutating func number(_ value: Int) { number(Int64(value)) }

    /// A finite number; `null` for NaN and infinities, which JSON cannot hold.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func string(_ text: String?) {
        guard let text else { return null() }
        bytes.append(quoting: text, .scriptJSON)
    }

    /// Metadata as a JSON object, keys sorted so equal metadata gives equal text.
    mutating func metadata(_ dictionary: LogStore.Metadata) {
        bytes.append(jsonMetadata: dictionary, .scriptJSON)
    }

    /// String pairs as `[[key, value], …]`, in ``HeaderOrder``.
    mutating func pairs(_ dictionary: [String: String]) {
        raw("[")
        for (index, pair) in HeaderOrder.sorted(dictionary).enumerated() {
            if index > 0 { raw(",") }
            raw("[")
            string(pair.name)
            raw(",")
            string(pair.value)
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
}
