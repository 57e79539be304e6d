import Foundation
import LogStore

/// `logstore history <store> [--json] [--retire <author>]`: the change history's authors, how
/// far behind each is, the history's size and its cleanup.
enum HistoryCommand: Command {
    static let spec = CommandSpec(
        name: "history",
        summary: "Show the change history: authors, their cursors, how far behind each is, size, cleanup.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [json, retire],
        discussion: """
            Each process that opens the store with a history configuration is an author. An
            author's cursor is the last change (history row: one per transaction, entity and
            operation) it consumed; "behind" counts the changes after it written by the other
            authors, and their transactions. Batch authors only write, so nothing is behind for
            them. Gaps are rows the size limit deleted before the author had read their insertion.

            A cleanup deletes history only through the lowest cursor of the required authors that
            have not retired: an author that stopped running holds it back until it is retired.
            A retired author that opens the store again is active again. Without --retire the
            store is opened read-only.

            An author that opened with the retention guard (GUARD "asks") makes every age sweep
            of the store keep what a consuming author has not read yet, however old: logstore
            sweep and processes opened without that setting included, even after the asking
            process has stopped. The request stays until the author opens without it or is
            retired (logstore history --retire NAME).

            Examples:
              logstore history app.logstore
              logstore history app.logstore --retire nightly-import
              logstore history app.logstore --json | jq '.authors[] | {name, behindChanges}'
            """)

    static let json = FlagOption("json", "Print LogStore's HistoryStatus as JSON (pretty, sorted keys, ISO 8601 dates in UTC).")
    static let retire = ValueOption(
        "retire", "author",
        "Retire this author first (it stops holding cleanup back and withdraws its request for the retention guard), "
            + "then show the history.")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        var retired: String?
        let status: HistoryStatus
        if let name = arguments.value(retire) {
            status = try await StoreAccess.withWritableStore(path, configuration: LogStore.Configuration()) { store in
                // Checked here, to list the authors there are; the library refuses an unknown one too.
                let before = try await store.historyStatus()
                guard before.authors.contains(where: { $0.name == name }) else {
                    throw CommandFailure(description: HistoryFormat.unknownAuthor(name, in: before), status: ExitStatus.notFound)
                }
                try await store.retireHistoryAuthor(name)
                return try await store.historyStatus()
            }
            retired = name
        } else {
            status = try await StoreAccess.withReadonlyStore(path) { try await $0.historyStatus() }
        }
        if arguments.flag(json) {
            console.line(try JSONOutput.pretty(status))
            return
        }
        if let retired {
            console.line(
                "Retired \(Format.escaped(retired)): it no longer holds cleanup back, nor asks for the retention guard.")
        }
        let lines = HistoryFormat.lines(
            status, path: StoreAccess.url(path).path, now: console.environment.currentDate, style: console.style,
            width: console.environment.terminalWidth)
        for line in lines { console.line(line) }
    }
}
