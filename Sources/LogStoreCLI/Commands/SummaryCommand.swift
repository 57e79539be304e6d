import Foundation
import LogStore

/// `logstore summary <store> [filters] [--buckets N] [--json]`: counts per level and label, the
/// error rate and a histogram of messages over time.
enum SummaryCommand: Command {
    static let spec = CommandSpec(
        name: "summary",
        summary: "Summarise messages: counts per level and label, error rate, a histogram over time.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [
            .value("level", "level", "Only this level and above (warning), or a range (info...error)."),
        ] + PageFilters.options(
            items: "messages", timed: "messages", labelHelp: "Only this label; repeat for several.",
            defaultLimit: 0
        ).filter { sharedOptions.contains($0.name) } + [
            .value("buckets", "n", "Histogram rows, 1 to \(bucketRange.upperBound) (default \(defaultBuckets))."),
            .flag("json", "Print the MessageSummary as one JSON object."),
        ],
        discussion: """
            Without --since and --until the histogram runs from the oldest to the newest matching
            message. Bars are coloured by level on a terminal (plain with NO_COLOR or when piped).
            Times: a time ago (90s, 15m, 2h, 3d, 1w), now, today, yesterday, or 2026-12-01,
            2026-12-01T10:00[:30] with Z or +02:00 (local time without; UTC with --utc).

            Examples:
              logstore summary app.logstore --since 1h
              logstore summary app.logstore --label http --level warning --buckets 12 --json
            """)

    /// The filters `summary` shares with `messages`; paging makes no sense for a summary.
    static let sharedOptions: Set<String> = ["label", "session", "since", "until"]
    /// Fits a terminal without scrolling; the library's default (60) suits charts.
    static let defaultBuckets = 30
    static let bucketRange = 1...1000

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let (query, buckets) = try request(arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        let summary = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) {
            try await $0.summary(query, buckets: buckets)
        }
        if arguments.flag("json") {
            console.line(try JSONOutput.line(summary))
            return
        }
        for line in SummaryFormat.lines(summary, style: console.style) { console.line(line) }
    }

    /// The query and bucket count the arguments ask for.
    static func request(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> (MessageQuery, Int) {
        let filters = try PageFilters(arguments, now: now, timeZone: timeZone, defaultLimit: 1)
        if let since = filters.since, let until = filters.until, until < since {
            throw UsageError(message: "--until must not be before --since", command: spec.name)
        }
        var query = MessageQuery(
            labels: filters.labels, sessions: filters.sessions, since: filters.since, until: filters.until)
        if let level = arguments.value("level") {
            query.levels = try ValueParsers.levels(level)
        }
        var buckets = defaultBuckets
        if let text = arguments.value("buckets") {
            buckets = try ValueParsers.integer(text, option: "buckets", in: bucketRange)
        }
        return (query, buckets)
    }
}
