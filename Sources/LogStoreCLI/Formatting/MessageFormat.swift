import LogStore

/// One message as one human-readable line:
/// `2025-03-01T12:00:00.123Z WARNING  http   GET /orders 503 (1204 ms)  request_id=4f1c status=503`.
enum MessageFormat {
    /// The terminal columns `message`'s label takes in a line (escaped, as it is shown).
    static func labelColumns(_ message: LogStore.Message) -> Int {
        DisplayWidth.of(Format.escaped(message.label))
    }

    /// The line for `message`; `labelWidth` (in terminal columns, ``labelColumns(_:)``) aligns the
    /// text column across a page.
    ///
    /// - Parameters:
    ///   - clipsLabel: cut a label wider than `labelWidth` to it, ending in `…`, so the text
    ///     column never moves (`tail`, whose labels are not all known in advance).
    ///   - expands: print a multi-line text (a stack trace) on several lines: the first as usual,
    ///     with the metadata, the others beneath it, indented to the text column. Otherwise (the
    ///     default) a line break shows as `\n` and every message is one line.
    static func line(
        _ message: LogStore.Message, labelWidth: Int, style: TextStyle, matches: [Range<String.Index>] = [],
        clipsLabel: Bool = false, expands: Bool = false
    ) -> String {
        var label = Format.escaped(message.label)
        if clipsLabel { label = clipped(label, to: labelWidth) }
        let paddedLabel = DisplayWidth.padded(label, to: labelWidth)
        let time = style.time(message.createdAt)
        let prefix = style.dim(time) + " " + style.level(message.level) + " " + style.cyan(paddedLabel) + " "
        let pieces = expands ? lines(of: message.text) : [message.text.startIndex..<message.text.endIndex]
        var line = prefix + highlighted(message.text, in: pieces[0], matches, style: style)
        if !message.metadata.isEmpty {
            line += "  " + style.dim(metadata(message.metadata))
        }
        guard pieces.count > 1 else { return line }
        let indent = String(
            repeating: " ", count: DisplayWidth.of(time) + TextStyle.levelWidth + max(labelWidth, DisplayWidth.of(label)) + 3)
        for piece in pieces.dropFirst() {
            line += "\n" + indent + highlighted(message.text, in: piece, matches, style: style)
        }
        return line
    }

    /// The ranges of `text`'s lines, without their breaks (`\n`, `\r\n`, …); trailing empty
    /// lines dropped, and always at least one.
    static func lines(of text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            if text[index].isNewline {
                ranges.append(start..<index)
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        ranges.append(start..<text.endIndex)
        while ranges.count > 1, let last = ranges.last, last.isEmpty { ranges.removeLast() }
        return ranges
    }

    /// `label` cut to `columns`, its last column an ellipsis, when it is wider.
    static func clipped(_ label: String, to columns: Int) -> String {
        guard columns > 0, DisplayWidth.of(label) > columns else { return label }
        return String(DisplayWidth.prefix(label, fitting: columns - 1).text) + "…"
    }

    /// The part of `text` in `range`, escaped, with the `matches` that fall inside it highlighted.
    private static func highlighted(
        _ text: String, in range: Range<String.Index>, _ matches: [Range<String.Index>], style: TextStyle
    ) -> String {
        if range == text.startIndex..<text.endIndex { return highlighted(text, matches, style: style) }
        let part = String(text[range])
        guard style.enabled, !matches.isEmpty else { return Format.escaped(part) }
        // The matches inside the line, moved to the line's own indexes.
        let offset = text.distance(from: text.startIndex, to: range.lowerBound)
        let inside = matches.filter { $0.lowerBound >= range.lowerBound && $0.upperBound <= range.upperBound }.map { match in
            let lower = part.index(part.startIndex, offsetBy: text.distance(from: text.startIndex, to: match.lowerBound) - offset)
            let upper = part.index(lower, offsetBy: text.distance(from: match.lowerBound, to: match.upperBound))
            return lower..<upper
        }
        return highlighted(part, inside, style: style)
    }

    /// `text` escaped, its `matches` (a search's, ascending) in bold red: piece by piece, since
    /// escaping changes lengths.
    static func highlighted(_ text: String, _ matches: [Range<String.Index>], style: TextStyle) -> String {
        guard style.enabled, !matches.isEmpty else { return Format.escaped(text) }
        var result = ""
        var position = text.startIndex
        for match in matches where match.lowerBound >= position && match.upperBound <= text.endIndex {
            result += Format.escaped(String(text[position..<match.lowerBound]))
            result += style.boldRed(Format.escaped(String(text[match])))
            position = match.upperBound
        }
        return result + Format.escaped(String(text[position...]))
    }

    /// `key=value` pairs sorted by key; nested dictionaries as `{key=value …}`, arrays as
    /// `[a,b]`; values with spaces, quotes or `=` are quoted.
    static func metadata(_ metadata: LogStore.Metadata) -> String {
        metadata.keys.sorted().map { key in
            "\(Format.escaped(key))=\(value(metadata[key] ?? .string("")))"
        }.joined(separator: " ")
    }

    private static func value(_ value: LogStore.MetadataValue) -> String {
        switch value {
        case .string(let text): return scalar(text)
        case .stringConvertible(let convertible): return scalar(convertible.description)
        case .dictionary(let dictionary): return "{" + metadata(dictionary) + "}"
        case .array(let values): return "[" + values.map(Self.value).joined(separator: ",") + "]"
        }
    }

    private static func scalar(_ text: String) -> String {
        let needsQuotes = text.isEmpty || text.contains { " =\"{}[],".contains($0) }
        guard needsQuotes else { return Format.escaped(text) }
        return "\"" + Format.escaped(text.replacingOccurrences(of: "\"", with: "\\\"")) + "\""
    }
}
