import Foundation
import LogStore

/// `logstore summary <store> [filters] [--buckets N] [--json]`: counts per level and label, the
/// error rate and a histogram of messages over time.
enum SummaryCommand: Command {
    static let spec = CommandSpec(
        name: "summary",
        summary: "Summarise messages: counts per level and label, error rate, a histogram over time.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [MessagesCommand.level] + MessagesCommand.window.all + [buckets, json],
        discussion: """
            Without --since and --until the histogram runs from the oldest to the newest matching
            message. Bars are coloured by level on a terminal (plain with NO_COLOR or when piped).
            Times: a time ago (90s, 15m, 2h, 3d, 1w), now, today, yesterday, or 2026-12-01,
            2026-12-01T10:00[:30] with Z or +02:00 (local time without; UTC with --utc).

            Examples:
              logstore summary app.logstore --since 1h
              logstore summary app.logstore --label http --level warning --buckets 12 --json
            """)

    // The level and window filters are those of `messages`; paging makes no sense for a summary.
    static let buckets = ValueOption("buckets", "n", "Histogram rows, 1 to \(bucketRange.upperBound) (default \(defaultBuckets)).")
    static let json = FlagOption("json", "Print the MessageSummary as one JSON object.")
    /// Fits a terminal without scrolling; the library's default (60) suits charts.
    static let defaultBuckets = 30
    static let bucketRange = 1...1000

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let (query, buckets) = try request(arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        let summary = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) {
            try await $0.summary(query, buckets: buckets)
        }
        if arguments.flag(json) {
            console.line(try JSONOutput.line(summary))
            return
        }
        for line in SummaryFormat.lines(summary, style: console.style) { console.line(line) }
    }

    /// The query and bucket count the arguments ask for.
    static func request(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> (MessageQuery, Int) {
        let filters = try WindowFilters(arguments, MessagesCommand.window, now: now, timeZone: timeZone)
        var query = MessageQuery(
            labels: filters.labels, sessions: filters.sessions, since: filters.since, until: filters.until)
        try MessagesCommand.readLevel(arguments, into: &query)
        var count = defaultBuckets
        if let text = arguments.value(buckets) {
            count = try ValueParsers.integer(text, option: buckets.name, in: bucketRange)
        }
        return (query, count)
    }
}
