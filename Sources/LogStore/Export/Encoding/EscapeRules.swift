/// What a logged string must not carry into the place it lands in, and how it is spelled
/// instead. Every logged string is attacker-controlled: a newline would forge a line, an ANSI
/// escape would drive the reader's terminal, a quote would end a JSON string early, `</script>`
/// would end the HTML page's data block.
///
/// One set of rules per context, all applied by the one scanner in `Array+Escaping.swift`.
struct EscapeRules: Sendable {
    /// How an escaped character is spelled.
    enum Notation: Sendable {
        /// JSON (RFC 8259 §7): `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, else `\u001b`.
        case json
        /// The text export: `\"`, `\\`, `\n`, `\r`, `\t`, else `\u{1b}`, which reads as the scalar
        /// it stands for (a bracket too: `\u{5d}`, so no `]` of a label is left to read as the
        /// column's end).
        case text
    }

    let notation: Notation
    /// Whether DEL, C1 (U+0080–U+009F), the bidirectional overrides and isolates (which can make
    /// a line read differently from what it holds) and U+2028/U+2029 are escaped: what a file
    /// needs so that `cat` or `less` of it is safe.
    let isTerminalSafe: Bool
    /// Whether `<`, `>`, `&` and U+2028/U+2029 are escaped: what JSON inside an HTML
    /// `<script>` block needs, so no text spells `</script>` or `<!--`, and no JavaScript older
    /// than ES2019 takes a separator for a line end.
    let isScriptSafe: Bool
    /// Per byte: whether it may start something to escape. Every ASCII byte marked is escaped;
    /// the two lead bytes marked (0xC2, 0xE2) start a scalar that is checked (``escapes(_:)``).
    let stops: [Bool]

    private init(_ notation: Notation, escaping extra: String, terminalSafe: Bool, scriptSafe: Bool) {
        self.notation = notation
        isTerminalSafe = terminalSafe
        isScriptSafe = scriptSafe
        var stops = [Bool](repeating: false, count: 256)
        for byte in 0..<0x20 { stops[byte] = true }
        for byte in extra.utf8 { stops[Int(byte)] = true }
        if terminalSafe {
            stops[0x7F] = true
            stops[0xC2] = true  // U+0080–U+00BF
        }
        if terminalSafe || scriptSafe {
            stops[0xE2] = true  // U+2000–U+2FFF: the separators, overrides and isolates
        }
        if scriptSafe {
            for byte in "<>&".utf8 { stops[Int(byte)] = true }
        }
        self.stops = stops
    }

    /// Whether `scalar`, which starts at a byte of ``stops``, is escaped.
    @inline(__always)
    func escapes(_ scalar: UInt32) -> Bool {
        if scalar < 0x80 { return true }
        if scalar == 0x2028 || scalar == 0x2029 { return true }
        return isTerminalSafe
            && ((0x80...0x9F).contains(scalar) || (0x202A...0x202E).contains(scalar) || (0x2066...0x2069).contains(scalar))
    }

    // MARK: The contexts

    /// A text export's line: controls and what ``isTerminalSafe`` names, and `\`, so that a
    /// logged `\n` (two characters) does not read as an escaped newline.
    static let text = EscapeRules(.text, escaping: "\\", terminalSafe: true, scriptSafe: false)
    /// A quoted metadata key or value of a text line: as ``text``, and `"`.
    static let quotedText = EscapeRules(.text, escaping: "\\\"", terminalSafe: true, scriptSafe: false)
    /// A label between `[` and `]` in a text line: as ``text``, and the brackets (as `\u{5b}` and
    /// `\u{5d}`), so a label cannot close its column and forge a level beside the real one.
    static let label = EscapeRules(.text, escaping: "\\[]", terminalSafe: true, scriptSafe: false)
    /// The inside of a JSON string in a file (NDJSON, HAR): RFC 8259's escapes, and what
    /// ``isTerminalSafe`` names.
    static let json = EscapeRules(.json, escaping: "\\\"", terminalSafe: true, scriptSafe: false)
    /// The inside of a JSON string in an HTML `<script type="application/json">` block: as
    /// ``json``, and what ``isScriptSafe`` names.
    static let scriptJSON = EscapeRules(.json, escaping: "\\\"", terminalSafe: true, scriptSafe: true)
}
