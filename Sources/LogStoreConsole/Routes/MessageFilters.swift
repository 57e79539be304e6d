import Foundation
import LogStore

/// The message filters of the API's query parameters, shared by the messages page, the
/// histogram, the live tail and downloads, so a permalink means the same everywhere:
///
/// | parameter | meaning |
/// |---|---|
/// | `level` | the levels shown, as `--level` reads them: `warning` (also `warning+`, which a query delivers as `"warning "`) is warnings and worse, `info...error` a range |
/// | `maxLevel` | the highest level shown (narrows `level`'s range) |
/// | `label`, `session` | any of these (repeat, or separate with commas) |
/// | `since`, `until` | a time: ISO 8601 (`2026-12-06T10:00:00Z`) or seconds since 1970 |
/// | `q` | full-text search, plain words (`syntax=fts5` for FTS5's syntax) |
/// | `task` | the messages of one network task (its UUID) |
enum MessageFilters {
    /// The query `parameters` describe, with `limit` and `order` left at their defaults.
    static func query(_ parameters: QueryParameters) throws(ConsoleRequestError) -> MessageQuery {
        var query = MessageQuery()
        let named = try parameters.value("level").map { text throws(ConsoleRequestError) in try levels(text) }
        let highest = try parameters.value("maxLevel").map { name throws(ConsoleRequestError) in try level(name) } ?? .critical
        let lowest = named?.lowerBound ?? .trace
        let upper = min(named?.upperBound ?? .critical, highest)
        guard lowest <= upper else { throw .badRequest("level \(lowest) is above maxLevel \(highest)") }
        if lowest != .trace || upper != .critical { query.levels = lowest...upper }
        query.labels = parameters.values("label")
        query.sessions = try parameters.values("session").map { text throws(ConsoleRequestError) in try uuid(text, "session") }
        query.since = try parameters.value("since").map { text throws(ConsoleRequestError) in try date(text, "since") }
        query.until = try parameters.value("until").map { text throws(ConsoleRequestError) in try date(text, "until") }
        if let text = parameters.value("q") {
            query.text = parameters.value("syntax") == "fts5" ? .fts5(text) : TextSearch(text)
            query.highlightsMatches = true
        }
        if let task = parameters.value("task") {
            query.taskID = try uuid(task, "task")
            query.includesTaskMessages = true
        }
        return query
    }

    /// The levels of `level=`: ``LogStore/Level/range(parsing:)``, the parser `--level` and the
    /// exported page agree with.
    static func levels(_ text: String) throws(ConsoleRequestError) -> ClosedRange<LogStore.Level> {
        do {
            return try LogStore.Level.range(parsing: text)
        } catch {
            throw .badRequest("level=\(text): \(error.reason ?? error.description)")
        }
    }

    /// One level by name (`maxLevel=`).
    static func level(_ name: String) throws(ConsoleRequestError) -> LogStore.Level {
        guard let level = LogStore.Level(name: name) else {
            throw .badRequest("no level is called \(name) (trace, debug, info, notice, warning, error, critical)")
        }
        return level
    }

    /// A UUID parameter.
    static func uuid(_ text: String, _ name: String) throws(ConsoleRequestError) -> UUID {
        guard let uuid = UUID(uuidString: text) else { throw .badRequest("\(name) must be a UUID, not \(text)") }
        return uuid
    }

    /// A time: ISO 8601, with or without fractions of a second, or seconds since 1970.
    static func date(_ text: String, _ name: String) throws(ConsoleRequestError) -> Date {
        if let seconds = Double(text), seconds.isFinite { return Date(timeIntervalSince1970: seconds) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: text) { return date }
        throw .badRequest("\(name) must be an ISO 8601 time (2026-12-06T10:00:00Z) or seconds since 1970, not \(text)")
    }

    /// An integer parameter within `range`, or `fallback` when absent.
    static func integer(
        _ parameters: QueryParameters, _ name: String, in range: ClosedRange<Int>, default fallback: Int
    ) throws(ConsoleRequestError) -> Int {
        guard let text = parameters.value(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw .badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }
}
