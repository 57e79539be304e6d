import Foundation
import LogStore

/// The filters and paging that `messages` and `tasks` share: labels, sessions, a time window, the
/// page size, the order and the cursor of an earlier page.
struct PageFilters {
    var labels: [String] = []
    var sessions: [UUID] = []
    var since: Date?
    var until: Date?
    var limit: Int
    var isOldestFirst = false
    /// The `--cursor` as given: each command parses its own kind of cursor.
    var cursorText: String?

    /// Keeps `limit + 1` (asked for to learn whether another page exists) from overflowing.
    static let maximumLimit = 10_000_000

    /// The options, in the order `--help` lists them.
    /// - Parameters:
    ///   - items: what is listed ("messages", "tasks").
    ///   - timed: what the time window applies to ("messages", "tasks started").
    ///   - labelHelp: the help of `--label`.
    static func options(items: String, timed: String, labelHelp: String, defaultLimit: Int) -> [OptionSpec] {
        [
            .repeatable("label", "label", labelHelp),
            .repeatable("session", "id", "Only this session (see 'logstore sessions'); repeat for several."),
            .value("since", "time", "Only \(timed) at or after this time."),
            .value("until", "time", "Only \(timed) before this time."),
            .value("limit", "n", "The most \(items) to print (default \(defaultLimit))."),
            .flag("oldest-first", "Print the oldest \(items) first (default: newest first)."),
            .value("cursor", "cursor", "Continue after an earlier page (its last line prints the cursor)."),
        ]
    }

    init(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone = CommandEnvironment.utc, defaultLimit: Int) throws(UsageError) {
        labels = arguments.all("label")
        for session in arguments.all("session") {
            sessions.append(try ValueParsers.uuid(session, option: "session"))
        }
        if let since = arguments.value("since") {
            self.since = try ValueParsers.date(since, option: "since", now: now, timeZone: timeZone)
        }
        if let until = arguments.value("until") {
            self.until = try ValueParsers.date(until, option: "until", now: now, timeZone: timeZone)
        }
        limit = defaultLimit
        if let limit = arguments.value("limit") {
            self.limit = try ValueParsers.integer(limit, option: "limit", in: 1...Self.maximumLimit)
        }
        isOldestFirst = arguments.flag("oldest-first")
        cursorText = arguments.value("cursor")
    }

    /// The `--cursor` as a cursor of type `C` (`MessageQuery.Cursor`, `TaskQuery.Cursor`), whose
    /// text form looks like `example`.
    func cursor<C: LosslessStringConvertible>(_: C.Type, example: String) throws(UsageError) -> C? {
        guard let cursorText else { return nil }
        return try ValueParsers.cursor(cursorText, option: "cursor", example: example)
    }
}
