/// Reads FTS5's `highlight()` output back into ranges of the original text.
enum Highlight {
    /// The ranges of `text` that `highlighted` (the text with ``MessageSearchSQL/matchStart``
    /// and ``MessageSearchSQL/matchEnd`` around each match) marks; `nil` when it is not `text`
    /// with markers (the text holds a marker character itself).
    ///
    /// Read scalar by scalar: FTS5 marks tokens, and in scripts with combining marks a token
    /// can end inside a character (a grapheme cluster); each range is then widened to whole
    /// characters.
    static func ranges(_ highlighted: String, in text: String) -> [Range<String.Index>]? {
        let start = MessageSearchSQL.matchStart.unicodeScalars.first
        let end = MessageSearchSQL.matchEnd.unicodeScalars.first
        let scalars = text.unicodeScalars
        guard !scalars.contains(where: { $0 == start || $0 == end }) else { return nil }
        var ranges: [Range<String.Index>] = []
        var position = scalars.startIndex
        var openedAt: String.Index?
        for scalar in highlighted.unicodeScalars {
            switch scalar {
            case start:
                openedAt = position
            case end:
                guard let opened = openedAt else { return nil }
                openedAt = nil
                guard opened < position else { continue }
                let lower = text.indices.last(where: { $0 <= opened }) ?? text.startIndex
                let upper = text.indices.first(where: { $0 >= position }) ?? text.endIndex
                if let last = ranges.last, last.upperBound > lower {
                    ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, upper)
                } else {
                    ranges.append(lower..<upper)
                }
            default:
                guard position < scalars.endIndex, scalars[position] == scalar else { return nil }
                position = scalars.index(after: position)
            }
        }
        return position == scalars.endIndex ? ranges : nil
    }
}
