public import Foundation

/// Which requests a network logger records, by host and by URL.
///
/// ```swift
/// let filter = try URLFilter(
///     includedHosts: ["*.example.com"],
///     excludedURLs: [.regex(#"/health$"#)]
/// )
/// filter.allows(URL(string: "https://api.example.com/users"))  // true
/// filter.allows(URL(string: "https://api.example.com/health")) // false
/// ```
///
/// The rules, in order:
/// 1. A URL that matches any excluded host or excluded URL is refused — exclusion wins.
/// 2. With no included hosts and no included URLs, everything else is allowed.
/// 3. Otherwise a URL is allowed when it matches an included host or an included URL.
///
/// Host patterns are matched against `url.host`, ignoring case. URL patterns are matched against
/// `url.absoluteString` as written (paths are case-sensitive); a regex can opt out with `(?i)`.
/// Regular expressions are compiled once, when the filter is created.
public struct URLFilter: Sendable, Hashable {
    /// Hosts to record; empty (with ``includedURLs`` empty too) means every host.
    public let includedHosts: [URLPattern]
    /// Hosts never to record.
    public let excludedHosts: [URLPattern]
    /// URLs to record; empty (with ``includedHosts`` empty too) means every URL.
    public let includedURLs: [URLPattern]
    /// URLs never to record.
    public let excludedURLs: [URLPattern]

    private let compiledIncludedHosts: [CompiledURLPattern]
    private let compiledExcludedHosts: [CompiledURLPattern]
    private let compiledIncludedURLs: [CompiledURLPattern]
    private let compiledExcludedURLs: [CompiledURLPattern]

    /// A pattern a filter could not use: a regular expression that does not compile.
    public struct InvalidPatternError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The pattern as given.
        public var pattern: URLPattern
        /// Why it was rejected, as reported by `NSRegularExpression`.
        public var reason: String

        /// The pattern and why it was rejected, for a log or an error message.
        public var description: String { "Invalid URL pattern \(pattern): \(reason)" }
    }

    /// A filter that allows everything.
    public static let all = URLFilter()

    /// Creates a filter.
    ///
    /// - Parameters:
    ///   - includedHosts: Hosts to record. Default none (with no included URLs: every host).
    ///   - excludedHosts: Hosts never to record. Default none.
    ///   - includedURLs: URLs to record. Default none.
    ///   - excludedURLs: URLs never to record. Default none.
    /// - Throws: ``InvalidPatternError`` for the first ``URLPattern/regex(_:)`` that does not compile.
    public init(
        includedHosts: [URLPattern] = [],
        excludedHosts: [URLPattern] = [],
        includedURLs: [URLPattern] = [],
        excludedURLs: [URLPattern] = []
    ) throws(InvalidPatternError) {
        self.includedHosts = includedHosts
        self.excludedHosts = excludedHosts
        self.includedURLs = includedURLs
        self.excludedURLs = excludedURLs
        compiledIncludedHosts = try Self.compile(includedHosts, ignoringCase: true)
        compiledExcludedHosts = try Self.compile(excludedHosts, ignoringCase: true)
        compiledIncludedURLs = try Self.compile(includedURLs, ignoringCase: false)
        compiledExcludedURLs = try Self.compile(excludedURLs, ignoringCase: false)
    }

    /// Creates a filter that allows everything; the same as ``all``.
    public init() {
        includedHosts = []
        excludedHosts = []
        includedURLs = []
        excludedURLs = []
        compiledIncludedHosts = []
        compiledExcludedHosts = []
        compiledIncludedURLs = []
        compiledExcludedURLs = []
    }

    private static func compile(
        _ patterns: [URLPattern], ignoringCase: Bool
    ) throws(InvalidPatternError) -> [CompiledURLPattern] {
        var compiled: [CompiledURLPattern] = []
        compiled.reserveCapacity(patterns.count)
        for pattern in patterns {
            compiled.append(try CompiledURLPattern(pattern, ignoringCase: ignoringCase))
        }
        return compiled
    }

    /// Whether a request to `url` should be recorded. A nil URL, or one without a host, matches
    /// no host pattern (an empty host is tested), so it is allowed only when nothing is included.
    public func allows(_ url: URL?) -> Bool {
        let host = url?.host ?? ""
        let string = url?.absoluteString ?? ""
        if compiledExcludedHosts.contains(where: { $0.matches(host) })
            || compiledExcludedURLs.contains(where: { $0.matches(string) }) {
            return false
        }
        if compiledIncludedHosts.isEmpty && compiledIncludedURLs.isEmpty { return true }
        guard url != nil else { return false }
        return compiledIncludedHosts.contains(where: { $0.matches(host) })
            || compiledIncludedURLs.contains(where: { $0.matches(string) })
    }

    /// Filters are equal when their patterns are.
    public static func == (lhs: URLFilter, rhs: URLFilter) -> Bool {
        lhs.includedHosts == rhs.includedHosts && lhs.excludedHosts == rhs.excludedHosts
            && lhs.includedURLs == rhs.includedURLs && lhs.excludedURLs == rhs.excludedURLs
    }

    /// Hashes the four pattern lists, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(includedHosts)
        hasher.combine(excludedHosts)
        hasher.combine(includedURLs)
        hasher.combine(excludedURLs)
    }
}
