/// Text to find with full-text search (``MessageQuery/text``, ``TaskQuery/urlText``).
///
/// Two syntaxes, and user-typed text is safe in both: it is never SQL, and a query FTS5 cannot
/// parse is an ``LogStoreError/invalidArgument(_:)``, not a database error.
///
/// - ``plain(_:)`` (the default, what a search box or `--grep` gets): the words as typed, each
///   one quoted, so every word must appear and no character has a meaning: `"`, `*`, `(`, `-`,
///   `AND`, `OR`, `NEAR` are text like any other. Words are what SQLite's `unicode61` tokenizer
///   finds: runs of letters and digits, compared without case and accents (`cafe` finds
///   `Café`); punctuation separates words, so `api-07.internal` finds the three words in that
///   order. Text with no letters or digits at all (`-`) matches nothing; empty text is no filter.
/// - ``fts5(_:)``: SQLite's FTS5 query syntax for those who want it: `timeout OR refused`,
///   `"connection reset"` (a phrase), `upstr*` (a prefix), `error NOT retry`,
///   `NEAR(disk full, 5)`, and parentheses. See <https://sqlite.org/fts5.html#full_text_query_syntax>.
public struct TextSearch: Sendable, Hashable, Codable {
    /// How ``text`` is read.
    public enum Syntax: String, Sendable, Hashable, Codable {
        /// Every word must appear; no operators.
        case plain
        /// SQLite FTS5 query syntax.
        case fts5
    }

    /// The text as given.
    public var text: String
    /// How it is read.
    public var syntax: Syntax

    /// A search for `text` read as ``Syntax/plain``.
    public init(_ text: String) {
        self.init(text, syntax: .plain)
    }

    /// A search for `text` read with `syntax`.
    public init(_ text: String, syntax: Syntax) {
        self.text = text
        self.syntax = syntax
    }

    /// The words as typed: ``Syntax/plain``.
    public static func plain(_ text: String) -> TextSearch { TextSearch(text, syntax: .plain) }

    /// An FTS5 query: ``Syntax/fts5``.
    public static func fts5(_ query: String) -> TextSearch { TextSearch(query, syntax: .fts5) }

    /// Whether the search filters nothing (no text at all).
    var isEmpty: Bool { matchExpression == nil }

    /// The FTS5 query expression to bind as the right side of `MATCH` (never spliced into SQL);
    /// `nil` when ``isEmpty``.
    var matchExpression: String? {
        switch syntax {
        case .fts5:
            return text.allSatisfy(\.isWhitespace) ? nil : text
        case .plain:
            // Each word as an FTS5 string: inside double quotes nothing is an operator, and a
            // quote is written twice. Words are split on any white space, as typed, and on NUL,
            // where FTS5 would stop reading the query (it separates words anyway).
            let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{0}" })
            guard !words.isEmpty else { return nil }
            return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " ")
        }
    }
}
