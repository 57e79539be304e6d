/// How many terminal columns text takes: CJK ideographs, kana, Hangul, fullwidth forms and
/// emoji take two, combining marks and format characters none, the rest one.
///
/// Built in rather than `wcwidth(3)`, whose answer depends on the process's locale (`C` counts
/// every non-ASCII character as unprintable) and on the C library's Unicode tables.
enum DisplayWidth {
    /// The columns of `text`, grapheme by grapheme.
    static func of(_ text: some StringProtocol) -> Int {
        // Most cells are ASCII, where columns and bytes agree.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    /// The columns of one grapheme: those of its widest scalar (a base letter and its accents
    /// take the base's; an emoji sequence joined by U+200D takes one emoji's), and two for a
    /// character that asks for emoji presentation with U+FE0F (❤️).
    static func of(_ character: Character) -> Int {
        var widest = 0
        var asksForEmoji = false
        for scalar in character.unicodeScalars {
            widest = max(widest, of(scalar))
            if scalar.value == 0xFE0F { asksForEmoji = true }
        }
        if asksForEmoji, character.unicodeScalars.first?.properties.isEmoji == true { return 2 }
        return widest
    }

    /// The columns of one scalar on its own.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value >= 0x20 && value < 0x7F { return 1 }
        if value < 0x20 || (0x7F...0x9F).contains(value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        // Hangul's medial vowels and final consonants join the syllable before them.
        if (0x1160...0x11FF).contains(value) { return 0 }
        return isWide(value) ? 2 : 1
    }

    /// Unicode's East Asian Wide and Fullwidth blocks (UAX #11), as ranges of whole blocks:
    /// what terminals draw two columns wide beside the emoji.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi radicals, CJK symbols and punctuation
        0x3041...0x33FF,  // kana, Bopomofo, Hangul compatibility Jamo, CJK compatibility
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth ASCII
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4, 0x17000...0x18CFF,  // Tangut, Khitan
        0x1B000...0x1B2FF,  // kana supplement and extensions, Nüshu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x3FFFD,  // CJK extensions B and beyond
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        return wide.contains { $0.contains(value) }
    }

    /// `text` with spaces after it up to `columns` terminal columns (as it is when wider).
    static func padded(_ text: String, to columns: Int) -> String {
        let width = of(text)
        return width >= columns ? text : text + String(repeating: " ", count: columns - width)
    }

    /// The longest prefix of `text` that fits in `columns`, cut between graphemes, and its width.
    static func prefix(_ text: String, fitting columns: Int) -> (text: Substring, width: Int) {
        var width = 0
        var end = text.startIndex
        for index in text.indices {
            let next = of(text[index])
            guard width + next <= columns else { break }
            width += next
            end = text.index(after: index)
        }
        return (text[..<end], width)
    }
}
