import Foundation
import Glibc
import LogStore
import Synchronization

/// `logstore tail <store> [filters]`: the newest messages, then every new one as it is committed
/// (by any process writing the store), until Ctrl-C: `journalctl -f`.
enum TailCommand: Command {
    static let spec = CommandSpec(
        name: "tail",
        summary: "Follow a store: print the newest messages, then each new one as it is logged.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        // The filters are those of `messages`: whatever filter it gains, `tail` has too.
        options: [lines, follow, afterCursor, showCursor] + MessagesCommand.filterOptions + [MessagesCommand.expand, json],
        discussion: """
            Takes the same filters as 'logstore messages'. Ends with status 0 on Ctrl-C (SIGINT) or
            SIGTERM. When the sweep removes messages before they are shown, a line says which.
            The label column keeps one width from the first line on: that of the longest label
            the store knows when the tail starts (of those --label names, if given), at most
            \(maximumLabelWidth) columns; a longer label is cut with ….

            Examples:
              logstore tail app.logstore
              logstore tail app.logstore -n 50 --level warning --label http
              logstore tail app.logstore --json --show-cursor 2>cursor.txt
              logstore tail app.logstore --after-cursor m1234
            """)

    static let defaultLines = 10
    /// The widest the label column gets, as on a page of `messages`.
    static let maximumLabelWidth = 16

    static let lines = ValueOption(
        "lines", "n", "Start with the newest n messages that match (default \(defaultLines); 0: only new ones).", short: "n")
    /// Read by nobody: following is what a tail does.
    static let follow = FlagOption("follow", "Keep following (the default; accepted for journalctl's and tail's -f).", short: "f")
    static let afterCursor = ValueOption(
        "after-cursor", "cursor", "Start right after this cursor (printed by --show-cursor) instead of -n.")
    static let showCursor = FlagOption(
        "show-cursor", "On exit, print the cursor of the last message shown (to resume with --after-cursor).")
    static let json = FlagOption(
        "json", "Print NDJSON: one JSON object per message (the cursor, if asked, goes to standard error).")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        var query = try MessagesCommand.filterQuery(
            arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        // A tail goes oldest first from where `start` says; the query's order and cursor do not apply.
        query.order = .oldestFirst
        let start = try start(arguments)
        let json = arguments.flag(Self.json)
        var lastCursor: MessageQuery.Cursor?
        if case .after(let cursor) = start { lastCursor = cursor }

        try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { store in
            let gaps = GapLog()
            // Fixed before the first line: a column that widened as labels arrive would leave
            // the lines above it misaligned.
            let labelWidth = labelColumnWidth(query.labels.isEmpty ? try await store.labels() : query.labels)
            let expands = arguments.flag(MessagesCommand.expand)
            let tail = try await store.tail(query, from: start) { gaps.append($0) }
            // SIGINT or SIGTERM closes the store, which ends the tail's sequence normally: the
            // loop then prints the cursor and the command exits with status 0.
            let stop = StopSignal()
            let signals = stop.received
            let closer = Task {
                // Cancelled (the tail ended by itself): the loop ends without a signal, and the
                // store is left to the command.
                for await _ in signals {
                    // The command closes the store again once the loop ends and reports what
                    // that close found; nothing here to report twice.
                    do { try await store.close() } catch {}
                    return
                }
            }
            defer {
                closer.cancel()
                stop.cancel()
            }
            for try await message in tail {
                for gap in gaps.take() { console.errorLine("logstore: \(gap)") }
                if json {
                    console.line(try JSONOutput.line(MessageRecord(message: message)))
                } else {
                    console.line(MessageFormat.line(
                        message, labelWidth: labelWidth, style: console.style, clipsLabel: true, expands: expands))
                }
                // Each line as it comes: someone is watching.
                console.flush()
                lastCursor = MessageQuery.Cursor(lastID: message.id)
            }
            for gap in gaps.take() { console.errorLine("logstore: \(gap)") }
        }
        if arguments.flag(showCursor), let lastCursor {
            if json {
                console.errorLine("-- cursor: \(lastCursor)")
            } else {
                console.line(console.style.dim("-- cursor: \(lastCursor)"))
            }
        }
    }

    /// The label column's width for these labels: the widest, at most ``maximumLabelWidth``;
    /// with none known yet, the most.
    static func labelColumnWidth(_ labels: [String]) -> Int {
        guard !labels.isEmpty else { return maximumLabelWidth }
        return min(maximumLabelWidth, labels.map { DisplayWidth.of(Format.escaped($0)) }.max() ?? 0)
    }

    static func start(_ arguments: ParsedArguments) throws(UsageError) -> TailStart {
        if let text = arguments.value(afterCursor) {
            // A malformed cursor is reported before the clash with --lines, as `messages` does.
            let cursor = try MessagesCommand.messageCursor(text, option: afterCursor)
            guard arguments.value(lines) == nil else {
                throw UsageError(message: "--after-cursor and --lines cannot be combined", command: spec.name)
            }
            return .after(cursor)
        }
        guard let count = arguments.value(lines) else { return .last(defaultLines) }
        return .last(try ValueParsers.integer(count, option: lines.name, in: 0...Paging.maximumLimit))
    }
}

/// Gaps the tail reported, handed from its `onGap` handler to the printing loop.
private final class GapLog: Sendable {
    private let gaps = Mutex<[TailGap]>([])

    func append(_ gap: TailGap) { gaps.withLock { $0.append(gap) } }

    func take() -> [TailGap] {
        gaps.withLock { gaps in
            defer { gaps = [] }
            return gaps
        }
    }
}
