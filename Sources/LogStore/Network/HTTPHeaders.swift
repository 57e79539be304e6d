// Helpers shared by the network value types and ``Redaction``: HTTP header names are
// case-insensitive (RFC 9110 §5.1), but the types keep the headers exactly as they were given, so
// every lookup goes through here.

extension Dictionary where Key == String, Value == String {
    /// The value of the header `name`, compared case-insensitively.
    ///
    /// An exact match wins, so the answer is deterministic even when a dictionary holds the same
    /// header under two spellings.
    func httpHeaderValue(_ name: String) -> String? {
        if let value = self[name] { return value }
        let lowered = name.lowercased()
        return first { $0.key.lowercased() == lowered }?.value
    }
}

enum MediaType {
    /// The media type of a `Content-Type` value without its parameters, lowercased:
    /// `"Application/JSON; charset=utf-8"` → `"application/json"`. Nil when nothing is left.
    static func essence(of contentType: String) -> String? {
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = type.trimmingHTTPWhitespace().lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether a media type (as returned by ``essence(of:)``) is JSON: `application/json`,
    /// `text/json` or any `+json` structured syntax suffix (RFC 6839), such as
    /// `application/problem+json`.
    static func isJSON(_ essence: String) -> Bool {
        essence == "application/json" || essence == "text/json" || essence.hasSuffix("+json")
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isWhitespace($0) }),
              let end = lastIndex(where: { !isWhitespace($0) }) else { return "" }
        return String(self[start...end])
    }
}
