import Foundation
import LogStore

/// Turns option values into typed values, with a usage error that says what was expected.
enum ValueParsers {
    /// `warning` (or `warning+`) means warning and above; `info...error` is an inclusive range:
    /// ``LogStore/Level/range(parsing:)``, the parser the console and the exported page agree with.
    static func levels(_ text: String, option: String = "level") throws(UsageError) -> ClosedRange<LogStore.Level> {
        do {
            return try LogStore.Level.range(parsing: text)
        } catch {
            throw invalid(option, text, error.reason ?? error.description)
        }
    }

    /// A point in time, in any form ``TimeParser`` reads; a usage error naming the option, the
    /// value and the accepted forms otherwise.
    static func date(_ text: String, option: String, now: Date, timeZone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> Date {
        do {
            return try TimeParser.date(text, now: now, timeZone: timeZone)
        } catch {
            throw invalid(option, text, error.reason)
        }
    }

    /// The seconds of a time ago (`90s`, `15m`, `2h`, `3d`, `1w`), `nil` for anything else.
    static func relativeSeconds(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let amount = Double(text.dropLast()), amount >= 0,
            text.dropLast().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
        else { return nil }
        switch unit {
        case "s": return amount
        case "m": return amount * 60
        case "h": return amount * 3600
        case "d": return amount * 86_400
        case "w": return amount * 604_800
        default: return nil
        }
    }

    /// A date as the JSON output writes it (ISO 8601 with a zone), for tests and scripts;
    /// `nil` for anything else (the caller has no user to tell why).
    static func isoDate(_ text: String) -> Date? {
        do {
            return try TimeParser.absolute(text, timeZone: CommandEnvironment.utc)
        } catch {
            return nil
        }
    }

    /// A whole number within `range`.
    static func integer(_ text: String, option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(value) else {
            let bound = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw invalid(option, text, "expected a whole number \(bound)")
        }
        return value
    }

    static func uuid(_ text: String, option: String) throws(UsageError) -> UUID {
        guard let uuid = UUID(uuidString: text) else {
            throw invalid(option, text, "expected a session id such as 6F9619FF-8B86-D011-B42D-00C04FC964FF")
        }
        return uuid
    }

    static func cursor<C: LosslessStringConvertible>(
        _ text: String, option: String, example: String
    ) throws(UsageError) -> C {
        guard let cursor = C(text) else {
            // Each command pages its own rows: a cursor of the other kind is a slip between them.
            if TaskQuery.Cursor(text) != nil {
                throw invalid(option, text, "this is a cursor of 'logstore tasks', which takes it with --cursor; "
                    + "this command expects one such as \(example)")
            }
            if MessageQuery.Cursor(text) != nil {
                throw invalid(option, text, "this is a cursor of 'logstore messages' (and 'logstore tail'); "
                    + "this command expects one such as \(example)")
            }
            throw invalid(option, text, "expected a cursor printed by an earlier page, such as \(example)")
        }
        return cursor
    }

    /// A status code (`200`), a class (`4xx`) or an inclusive range (`500-599`), within 100...599.
    static func statusCodes(_ text: String, option: String = "status") throws(UsageError) -> ClosedRange<Int> {
        let expected = "expected a status code (200), a class (4xx) or a range (500-599) from 100 to 599"
        let lowered = text.lowercased()
        if lowered.count == 3, lowered.hasSuffix("xx"), let digit = lowered.first?.wholeNumberValue, (1...5).contains(digit) {
            return (digit * 100)...(digit * 100 + 99)
        }
        let bounds = lowered.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(bounds.count),
            let lower = Int(bounds[0]), let upper = Int(bounds[bounds.count - 1]),
            bounds.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isASCII) }),
            (100...599).contains(lower), (100...599).contains(upper)
        else { throw invalid(option, text, expected) }
        guard lower <= upper else { throw invalid(option, text, "the first code must not be above the second") }
        return lower...upper
    }

    /// `pending`, `success` or `failure`.
    static func taskState(_ text: String, option: String = "state") throws(UsageError) -> NetworkTaskState {
        switch text.lowercased() {
        case "pending": return .pending
        case "success": return .success
        case "failure": return .failure
        default: throw invalid(option, text, "expected pending, success or failure")
        }
    }

    /// An HTTP method: a token of letters (`GET`, `post`), upper-cased.
    static func method(_ text: String, option: String = "method") throws(UsageError) -> String {
        guard !text.isEmpty, text.count <= 20, text.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw invalid(option, text, "expected an HTTP method such as GET or POST")
        }
        return text.uppercased()
    }

    /// A task id, as `logstore tasks` prints it.
    static func taskID(_ text: String, option: String = "task-id") throws(UsageError) -> UUID {
        guard let uuid = UUID(uuidString: text) else {
            throw UsageError(message: "invalid task id '\(text)': expected a UUID such as 6F9619FF-8B86-D011-B42D-00C04FC964FF "
                + "(the last column of 'logstore tasks')")
        }
        return uuid
    }

    /// The usage error of a value that does not parse: names the option, the value and what was
    /// expected. Internal so the parsers in `ValueParsers+Limits.swift` word their errors alike.
    static func invalid(_ option: String, _ text: String, _ expected: String) -> UsageError {
        UsageError(message: "invalid value '\(text)' for --\(option): \(expected)")
    }
}
