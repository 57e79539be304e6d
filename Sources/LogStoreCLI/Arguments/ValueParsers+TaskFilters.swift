import Foundation
import LogStore

/// The parsers of `tasks`' own filters: a duration (`--min-duration 250ms`), a path prefix, a
/// content type and a direction.
extension ValueParsers {
    /// A task's duration in seconds: `250ms`, `1.5s`, `2m`, `1h`, or a plain number of seconds
    /// (`0.25`). Fractions are allowed; at most a day (no task filter needs more, and a bound
    /// keeps typos such as `250` for `250ms` visible as "no tasks" rather than silently huge).
    static func taskDuration(_ text: String, option: String) throws(UsageError) -> TimeInterval {
        let expected = "expected a duration such as 250ms, 1.5s or 2m (a plain number is seconds)"
        let lowered = text.lowercased()
        var seconds: Double?
        if lowered.hasSuffix("ms") {
            let number = lowered.dropLast(2)
            if number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) { seconds = Double(number).map { $0 / 1000 } }
        } else if let last = lowered.last, last.isASCII, last.isNumber || last == "." {
            if lowered.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) { seconds = Double(lowered) }
        } else if ["s", "m", "h"].contains(lowered.last) {
            seconds = relativeSeconds(lowered)
        }
        guard let seconds, seconds.isFinite, seconds >= 0 else { throw invalid(option, text, expected) }
        guard seconds <= 86_400 else { throw invalid(option, text, "expected at most a day (24h)") }
        return seconds
    }

    /// A path prefix: it must start with `/`, as every stored path does.
    static func pathPrefix(_ text: String, option: String = "path") throws(UsageError) -> String {
        guard text.hasPrefix("/") else {
            throw invalid(option, text, "expected a path prefix starting with / such as /api/v1")
        }
        return text
    }

    /// A media type, `type/subtype` (`application/json`, `image/*`); parameters after `;` are
    /// accepted and ignored, as the query ignores them.
    static func contentType(_ text: String, option: String = "content-type") throws(UsageError) -> String {
        let media = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = media.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && !$0.contains(where: \.isWhitespace) }), parts[0] != "*"
        else {
            throw invalid(option, text, "expected a media type such as application/json or image/*")
        }
        return text
    }

    /// A task's direction: `inbound` (requests the server handled) or `outbound` (calls it
    /// made), any case; `in` and `out` for short.
    static func taskDirection(_ text: String, option: String = "direction") throws(UsageError) -> NetworkTaskDirection {
        switch text.lowercased() {
        case "inbound", "in": return .inbound
        case "outbound", "out": return .outbound
        default: throw invalid(option, text, "expected inbound or outbound")
        }
    }
}
