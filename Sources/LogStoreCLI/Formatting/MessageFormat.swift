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
    static func line(
        _ message: LogStore.Message, labelWidth: Int, style: TextStyle, matches: [Range<String.Index>] = []
    ) -> String {
        let label = Format.escaped(message.label)
        let paddedLabel = DisplayWidth.padded(label, to: labelWidth)
        var line = style.dim(style.time(message.createdAt)) + " " + style.level(message.level) + " "
            + style.cyan(paddedLabel) + " " + highlighted(message.text, matches, style: style)
        if !message.metadata.isEmpty {
            line += "  " + style.dim(metadata(message.metadata))
        }
        return line
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
