import Foundation
import LogStore

/// `logstore sweep <store> [--max-age <duration>] [--size-limit <size>] [--json]`: one sweep
/// now, with the limits given (the library's defaults for the others) and the retention guard the
/// store records, and what it removed and what the guard kept.
enum SweepCommand: Command {
    static let spec = CommandSpec(
        name: "sweep",
        summary: "Sweep a store now: remove old data, trim it to a size limit, give the space back.",
        positionals: [.init(name: "store", help: "The store directory (it must exist).")],
        options: [maxAge, sizeLimit, json],
        discussion: """
            The sweep removes messages and network tasks older than --max-age. When stored bodies
            take more than \(bodyShare) of --size-limit, the oldest tasks lose their bodies (the tasks
            stay) until bodies are back to \(kept) of that share; when the data still takes more
            than \(threshold) of the limit, the oldest messages go, with their tasks, so that about \(kept) remain
            (fewer when the store is so far over that it would still be over: then what brings
            it to \(kept) of the limit).
            Body files a crash left behind are deleted, then the free space is given back to the
            file system.

            Of limits, only those given here apply (the library's defaults otherwise), not those of
            the application that writes the store: pass its limits to sweep as it would. The
            retention guard recorded in the store applies too: while a history author asks for it
            (see logstore history), the age sweep keeps what a consuming author has not read yet,
            however old, and the report says how much it kept and which authors ask ("Kept by
            guard"; guardedMessages, guardedTasks and retentionGuardAuthors in --json). The store
            may be open in that application meanwhile: the sweep deletes in small transactions
            between its commits.

            Durations: 30s, 15m, 12h, 14d, 2w; a plain number is seconds.
            Sizes: 500000 (bytes), 64MB, 1.5GB (powers of 1000), 512KiB, 2GiB (powers of 1024).

            Examples:
              logstore sweep app.logstore --max-age 7d
              logstore sweep app.logstore --size-limit 64MB --json >> sweeps.ndjson
            """)

    static let maxAge = ValueOption(
        "max-age", "duration", "Remove messages and tasks older than this (default \(SweepFormat.age(defaults.maxAge))).")
    static let sizeLimit = ValueOption(
        "size-limit", "size",
        "Trim the oldest data once the store takes \(threshold) of this (default \(Format.bytes(defaults.sizeLimit))).")
    static let json = FlagOption("json", "Print the report as one line of JSON: SweepReport's fields and reclaimedBytes.")

    /// The limits a store has when nobody sets them.
    static let defaults = LogStore.Configuration()

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        // Values are checked before the store is opened: a typo must not cost a sweep.
        var configuration = LogStore.Configuration()
        if let text = arguments.value(maxAge) {
            configuration.maxAge = try ValueParsers.age(text, option: maxAge.name)
        }
        if let text = arguments.value(sizeLimit) {
            configuration.sizeLimit = try ValueParsers.byteSize(text, option: sizeLimit.name)
        }
        if let now = console.environment.now {
            // The age cut-off is measured from the same "now" as `messages --since`.
            configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: LogStore.TimeSource.system.sleep)
        }
        let path = arguments.positionals[0]
        // A bar on a terminal's stderr only: `--json` and piped output stay as they are.
        let bar = console.environment.progressOutput.map { ProgressBar(output: $0) }
        var callback: (@Sendable (SweepProgress) -> Void)?
        if let bar { callback = { progress in bar.draw(progress) } }
        let report: LogStore.SweepReport
        do {
            report = try await StoreAccess.withWritableStore(path, configuration: configuration) {
                try await $0.sweep(progress: callback)
            }
        } catch {
            bar?.finish()
            throw error
        }
        bar?.finish()

        if arguments.flag(json) {
            // One line, so that runs from cron can append to one NDJSON log.
            console.line(try JSONOutput.line(SweepReportRecord(report: report)))
            return
        }
        let style = console.style
        let rows: [(String, String)] = [
            ("Removed", SweepFormat.removed(report)),
            ("Size", SweepFormat.sizes(report)),
            ("Kept by guard", SweepFormat.guarded(report)),
            ("Limits", "older than \(SweepFormat.age(configuration.maxAge)), size \(Format.bytes(configuration.sizeLimit)) "
                + "(trimmed from \(threshold))"),
            ("Took", SweepFormat.duration(report)),
        ].filter { !$0.1.isEmpty }
        console.line(style.bold("Swept \(StoreAccess.url(path).path)"))
        for line in Format.fields(rows) { console.line(line) }
        if report.sizeAfter > configuration.sizeLimit, report.removedMessages + report.droppedBodies > 0 {
            // The free pages of what it removed, a WAL a reader holds, or bodies of tasks whose
            // messages are gone can leave it over; another run trims again. (A sweep that
            // removed nothing would remove nothing again: no advice then.)
            console.line(style.yellow("Still above the size limit: run it again to trim more."))
        }
    }

    /// The share of the size limit bodies may take, and the shares of messages a trim keeps and
    /// removes, as the help words them (`70%`, `30%`).
    private static let bodyShare = percent(defaults.blobSizeShare)
    private static let kept = percent(defaults.trimRatio)
    private static let trimmed = percent(1 - defaults.trimRatio)
    /// The share of the size limit at which the store is trimmed.
    private static let threshold = percent(LogStore.Configuration.sizeSweepThresholdRatio)

    private static func percent(_ fraction: Double) -> String {
        "\(Int((fraction * 100).rounded()))%"
    }
}
