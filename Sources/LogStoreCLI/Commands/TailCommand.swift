import Dispatch
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
        options: [
            OptionSpec.value("lines", "n", "Start with the newest n messages that match (default \(defaultLines); 0: only new ones).")
                .short("n"),
            OptionSpec.flag("follow", "Keep following (the default; accepted for journalctl's and tail's -f).").short("f"),
            .value("after-cursor", "cursor", "Start right after this cursor (printed by --show-cursor) instead of -n."),
            .flag("show-cursor", "On exit, print the cursor of the last message shown (to resume with --after-cursor)."),
        ] + filterOptions + [
            .flag("json", "Print NDJSON: one JSON object per message (the cursor, if asked, goes to standard error)."),
        ],
        discussion: """
            Takes the same filters as 'logstore messages'. Ends with status 0 on Ctrl-C (SIGINT) or
            SIGTERM. When the sweep removes messages before they are shown, a line says which.

            Examples:
              logstore tail app.logstore
              logstore tail app.logstore -n 50 --level warning --label http
              logstore tail app.logstore --json --show-cursor 2>cursor.txt
              logstore tail app.logstore --after-cursor m1234
            """)

    static let defaultLines = 10

    /// The options of `messages` that page or print rather than filter: a tail has its own.
    static let pagingOptions: Set<String> = [
        "limit", "oldest-first", "cursor", "reverse", "rank", "json", "show-cursor", "after-cursor", "lines", "follow",
    ]

    /// The filters of `messages`, taken from its spec: whatever filter it gains, `tail` has too
    /// (``MessagesCommand/query(_:now:)`` reads them all).
    static var filterOptions: [OptionSpec] {
        MessagesCommand.spec.options.filter { !pagingOptions.contains($0.name) }
    }

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        var query = try MessagesCommand.query(arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        // Where to start is the tail's own (`start`): `messages`' reading of --after-cursor goes.
        query.cursor = nil
        query.order = .oldestFirst
        let start = try start(arguments)
        let json = arguments.flag("json")
        var lastCursor: MessageQuery.Cursor?
        if case .after(let cursor) = start { lastCursor = cursor }

        try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { store in
            let gaps = GapLog()
            let tail = try await store.tail(query, from: start) { gaps.append($0) }
            let stop = StopOnSignals(store: store)
            defer { stop.cancel() }
            var labelWidth = 0
            for try await message in tail {
                for gap in gaps.take() { console.errorLine("logstore: \(gap)") }
                if json {
                    console.line(try JSONOutput.line(MessageRecord(message: message)))
                } else {
                    // The widest label so far, as the page of `messages` aligns its column.
                    labelWidth = min(16, max(labelWidth, MessageFormat.labelColumns(message)))
                    console.line(MessageFormat.line(message, labelWidth: labelWidth, style: console.style))
                }
                // Each line as it comes: someone is watching.
                console.flush()
                lastCursor = MessageQuery.Cursor(lastID: message.id)
            }
            for gap in gaps.take() { console.errorLine("logstore: \(gap)") }
        }
        if arguments.flag("show-cursor"), let lastCursor {
            if json {
                console.errorLine("-- cursor: \(lastCursor)")
            } else {
                console.line(console.style.dim("-- cursor: \(lastCursor)"))
            }
        }
    }

    static func start(_ arguments: ParsedArguments) throws(UsageError) -> TailStart {
        if let text = arguments.value("after-cursor") {
            guard arguments.value("lines") == nil else {
                throw UsageError(message: "--after-cursor and --lines cannot be combined", command: spec.name)
            }
            return .after(try ValueParsers.cursor(text, option: "after-cursor", example: "m1234"))
        }
        guard let lines = arguments.value("lines") else { return .last(defaultLines) }
        return .last(try ValueParsers.integer(lines, option: "lines", in: 0...PageFilters.maximumLimit))
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

/// Ends a tail on SIGINT or SIGTERM by closing its store, which ends the tail's sequence
/// normally: the loop then prints the cursor and the command exits with status 0.
///
/// The signals are ignored by the process while this is installed (so their default action
/// does not kill it first) and handled by dispatch sources instead; ``cancel()`` restores the
/// default actions.
private final class StopOnSignals {
    private static let signals = [SIGINT, SIGTERM]
    private let sources: [any DispatchSourceSignal]

    init(store: LogStore) {
        sources = Self.signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                Task {
                    // The command closes the store again once the loop ends and reports what
                    // that close found; nothing here to report twice.
                    do { try await store.close() } catch {}
                }
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}
