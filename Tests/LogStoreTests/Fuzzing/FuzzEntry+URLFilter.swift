import Foundation

@testable import LogStore

extension FuzzEntry {
    /// URL filters: each line but the last is a pattern (its first character says where it goes:
    /// `i`/`e` included/excluded host, `I`/`E` included/excluded URL; a second character `r`
    /// makes it a regex), the last line is the URL. Every wildcard must match as a plain
    /// backtracking glob does, and the filter must answer without trapping.
    static func urlFilter(_ data: Data) -> String? {
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let subject = lines.popLast() ?? ""
        var hosts: ([URLPattern], [URLPattern]) = ([], [])
        var urls: ([URLPattern], [URLPattern]) = ([], [])
        var hasRegex = false
        for line in lines {
            guard let kind = line.first else { continue }
            let rest = line.dropFirst()
            let isRegex = rest.first == "r"
            let text = String(isRegex ? rest.dropFirst() : rest)
            let pattern: URLPattern = isRegex ? .regex(text) : .wildcard(text)
            hasRegex = hasRegex || isRegex
            if !isRegex, let finding = globMismatch(text, subject) { return finding }
            switch kind {
            case "i": hosts.0.append(pattern)
            case "e": hosts.1.append(pattern)
            case "I": urls.0.append(pattern)
            default: urls.1.append(pattern)
            }
        }
        // ICU backtracks: a pattern such as `(a+)+$` takes exponential time in the text's length.
        // Patterns are the developer's, URLs the attacker's; the fuzzer only checks regexes on
        // short URLs so that a timeout means our code, not ICU's.
        if hasRegex, subject.utf8.count > 24 { return nil }
        guard let filter = try? URLFilter(includedHosts: hosts.0, excludedHosts: hosts.1, includedURLs: urls.0, excludedURLs: urls.1)
        else { return nil }
        _ = filter.allows(URL(string: subject))
        return nil
    }

    /// A difference between the filter's glob and a reference (memoised recursion over the same
    /// rules), both case-sensitive and ignoring case.
    private static func globMismatch(_ pattern: String, _ text: String) -> String? {
        for ignoringCase in [false, true] {
            guard let compiled = try? CompiledURLPattern(.wildcard(pattern), ignoringCase: ignoringCase) else { continue }
            let p = Array((ignoringCase ? pattern.lowercased() : pattern).unicodeScalars)
            let t = Array((ignoringCase ? text.lowercased() : text).unicodeScalars)
            let expected = referenceGlob(p, t)
            if compiled.matches(text) != expected {
                return "glob \(pattern.debugDescription) on \(text.debugDescription): expected \(expected)"
            }
        }
        return nil
    }

    /// Matches by dynamic programming: `matched[j]` says whether the pattern's first `i` scalars
    /// match the text's first `j`.
    private static func referenceGlob(_ p: [Unicode.Scalar], _ t: [Unicode.Scalar]) -> Bool {
        var matched = [Bool](repeating: false, count: t.count + 1)
        matched[0] = true
        for scalar in p {
            var next = [Bool](repeating: false, count: t.count + 1)
            if scalar == "*" {
                var any = false
                for j in 0...t.count {
                    any = any || matched[j]
                    next[j] = any
                }
            } else {
                for j in 0..<t.count where matched[j] && (scalar == "?" || scalar == t[j]) {
                    next[j + 1] = true
                }
            }
            matched = next
        }
        return matched[t.count]
    }
}
