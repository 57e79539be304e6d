import Foundation

/// A pattern a ``URLFilter`` matches hosts or URLs against.
///
/// ```swift
/// let patterns: [URLPattern] = [
///     "*.example.com",                      // a wildcard, from a string literal
///     .wildcard("api-v?.example.com"),
///     .regex(#"^https://[^/]+/v[0-9]+/"#),
/// ]
/// ```
public enum URLPattern: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A glob: `*` matches any run of characters (dots and slashes included), `?` exactly one
    /// character; everything else matches itself. It must match the whole host or URL, so
    /// `*.example.com` matches `api.example.com` but not `example.com`.
    case wildcard(String)
    /// An `NSRegularExpression`, found anywhere in the host or URL unless anchored with `^` / `$`.
    case regex(String)

    /// A wildcard pattern.
    public init(stringLiteral value: String) {
        self = .wildcard(value)
    }

    /// The pattern as written: the wildcard text, or the regular expression.
    public var description: String {
        switch self {
        case .wildcard(let pattern): pattern
        case .regex(let pattern): "regex(\(pattern))"
        }
    }
}

/// A pattern made ready to match: a wildcard split into scalars, a regex compiled once.
struct CompiledURLPattern: Sendable {
    private enum Matcher: Sendable {
        case wildcard([Unicode.Scalar])
        case regex(NSRegularExpression)
    }

    private let matcher: Matcher
    private let ignoresCase: Bool

    /// Compiles a pattern; `ignoringCase` for hosts.
    init(_ pattern: URLPattern, ignoringCase: Bool) throws(URLFilter.InvalidPatternError) {
        ignoresCase = ignoringCase
        switch pattern {
        case .wildcard(let glob):
            matcher = .wildcard(Array((ignoringCase ? glob.lowercased() : glob).unicodeScalars))
        case .regex(let source):
            do {
                matcher = .regex(try NSRegularExpression(
                    pattern: source, options: ignoringCase ? [.caseInsensitive] : []))
            } catch {
                throw URLFilter.InvalidPatternError(
                    pattern: pattern, reason: (error as NSError).localizedDescription)
            }
        }
    }

    func matches(_ text: String) -> Bool {
        switch matcher {
        case .wildcard(let pattern):
            let subject = Array((ignoresCase ? text.lowercased() : text).unicodeScalars)
            return Self.glob(pattern, matches: subject)
        case .regex(let expression):
            let range = NSRange(text.startIndex..<text.endIndex, in: text)
            return expression.firstMatch(in: text, options: [], range: range) != nil
        }
    }

    /// Glob matching in linear space and, at worst, O(pattern × text) time: on a mismatch it
    /// backtracks only to the most recent `*`, which is enough because an earlier star can never
    /// need to cover more than the later one already lets it.
    private static func glob(_ pattern: [Unicode.Scalar], matches text: [Unicode.Scalar]) -> Bool {
        var p = 0, t = 0
        var starPattern: Int? = nil, starText = 0
        while t < text.count {
            // `*` first: tested after the literal comparison, a `*` in the text would be
            // taken as matching the pattern's `*` literally, and the star would never widen.
            if p < pattern.count, pattern[p] == "*" {
                starPattern = p
                starText = t
                p += 1
            } else if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let star = starPattern {
                // Let the last star swallow one more character and retry after it.
                p = star + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
