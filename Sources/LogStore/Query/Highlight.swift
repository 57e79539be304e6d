/// Reads FTS5's `highlight()` output back into ranges of the original text.
enum Highlight {
    /// The ranges of `text` that `highlighted` (the text with ``MessageSearchSQL/matchStart``
    /// and ``MessageSearchSQL/matchEnd`` around each match) marks; `nil` when it is not `text`
    /// with markers (the text holds a marker character itself).
    static func ranges(_ highlighted: String, in text: String) -> [Range<String.Index>]? {
        let start = Character(MessageSearchSQL.matchStart)
        let end = Character(MessageSearchSQL.matchEnd)
        guard !text.contains(start), !text.contains(end) else { return nil }
        var ranges: [Range<String.Index>] = []
        var position = text.startIndex
        var openedAt: String.Index?
        for character in highlighted {
            switch character {
            case start:
                openedAt = position
            case end:
                guard let opened = openedAt else { return nil }
                if opened < position { ranges.append(opened..<position) }
                openedAt = nil
            default:
                guard position < text.endIndex, text[position] == character else { return nil }
                position = text.index(after: position)
            }
        }
        return position == text.endIndex ? ranges : nil
    }
}
