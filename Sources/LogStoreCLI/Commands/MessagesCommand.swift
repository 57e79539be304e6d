import Foundation
import LogStore

/// `logstore messages <store> [filters]`: one page of messages, newest first, with the cursor
/// of the next page.
enum MessagesCommand: Command {
    static let spec = CommandSpec(
        name: "messages",
        summary: "List and search messages by level, label, text, metadata, session and time, one page at a time.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [level] + window.all + paging.all + searchOptions + [reverse, rank, afterCursor, showCursor, expand, json],
        discussion: """
            Times: a time ago (90s, 15m, 2h, 3d, 1w), now, today, yesterday, or 2026-12-01,
            2026-12-01T10:00[:30] with Z or +02:00 (local time without; UTC with --utc).
            Levels: trace, debug, info, notice, warning, error, critical.
            --grep finds the words as typed, each one, without case or accents; --fts takes
            SQLite's FTS5 syntax: "a phrase", prefix*, AND, OR, NOT, NEAR(a b, 5), (...).
            --meta key=value matches a metadata value; --meta key, a key that exists; a dotted
            key (http.status=500) is a path into nested metadata, and a key in double quotes is
            one key, dots included: --meta '"error.message"=timeout' (swift-log's flat keys).
            Each message is one line (a line break shows as \\n) unless --expand.
            With --json, the hint for the next page goes to standard error, and only when
            standard output is a terminal; a script continues with --cursor m<id> of its last line.

            Examples:
              logstore messages app.logstore --level warning --since 2h
              logstore messages app.logstore --grep "connection reset" --label http
              logstore messages app.logstore --meta user=42 --exclude-label health --json
              logstore messages app.logstore --show-cursor     # later: --after-cursor m1234
            """)

    static let paging = Paging.Options(items: "messages", defaultLimit: defaultLimit)
    static let reverse = FlagOption("reverse", "Print the oldest messages first (as --oldest-first).")
    static let rank = FlagOption("rank", "With --grep or --fts: the best matches first (bm25), not the newest.")
    static let afterCursor = ValueOption(
        "after-cursor", "cursor", "Only messages logged after this cursor (see --show-cursor), oldest first.")
    static let showCursor = FlagOption("show-cursor", "End with the cursor of the newest message shown, for a later --after-cursor.")
    static let json = FlagOption("json", "Print NDJSON: one JSON object per message.")
    /// Shared with `tail`.
    static let expand = FlagOption(
        "expand", "Print each line of a multi-line message (a stack trace) beneath the first, indented (default: one line, breaks as \\n).")

    static let defaultLimit = 100

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let query = try query(arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        let pageSize = query.limit
        var lookahead = query
        // One more than shown tells whether a next page exists without printing a cursor that
        // leads to an empty page.
        lookahead.limit = pageSize + 1
        // Matches are shown in colour only.
        lookahead.highlightsMatches = console.style.enabled && !arguments.flag(json)
        let page = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { try await $0.messages(lookahead) }
        let messages = page.messages.prefix(pageSize)
        let next = page.messages.count > pageSize ? pageCursor(page, query: query, shown: messages.count) : nil
        let newest = arguments.flag(showCursor) ? messages.map(\.id).max().map { MessageQuery.Cursor(lastID: $0) } : nil

        if arguments.flag(json) {
            for message in messages { console.line(try JSONOutput.line(MessageRecord(message: message))) }
            // For the person at the terminal; a pipeline reads data only (as `tasks --json`).
            if let next, console.environment.outputIsTerminal {
                console.errorLine("logstore: more messages: continue with --cursor \(next)")
            }
            if let newest { console.errorLine("logstore: cursor: \(newest)") }
            return
        }
        if messages.isEmpty {
            console.line("No messages match.")
        }
        let labelWidth = min(16, messages.map(MessageFormat.labelColumns).max() ?? 0)
        for message in messages {
            console.line(MessageFormat.line(
                message, labelWidth: labelWidth, style: console.style, matches: page.matches[message.id] ?? [],
                expands: arguments.flag(expand)))
        }
        if let next {
            console.line(console.style.dim("-- more: \(continuation(arguments.raw, cursor: next))"))
        }
        if let newest { console.line(console.style.dim("-- cursor: \(newest)")) }
    }

    /// The cursor after the last message shown: its id, or its rank position.
    private static func pageCursor(_ page: MessagePage, query: MessageQuery, shown: Int) -> MessageQuery.Cursor? {
        guard query.order == .relevance else { return page.messages.prefix(shown).last.map { MessageQuery.Cursor(lastID: $0.id) } }
        let offset = query.cursor?.rankOffset ?? 0
        return MessageQuery.Cursor("r\(offset + shown)")
    }

    /// The filters and page as a ``MessageQuery``.
    static func query(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> MessageQuery {
        let window = try WindowFilters(arguments, Self.window, now: now, timeZone: timeZone)
        let page = try Paging(arguments, paging)
        var query = try searchFilters(arguments)
        query.labels = window.labels
        query.sessions = window.sessions
        query.since = window.since
        query.until = window.until
        query.limit = page.limit
        query.order = page.isOldestFirst || arguments.flag(reverse) ? .oldestFirst : .newestFirst
        query.cursor = try page.cursor(MessageQuery.Cursor.self, example: "m1234")
        try readLevel(arguments, into: &query)
        if arguments.flag(rank) {
            guard query.text != nil else {
                throw UsageError(message: "--rank orders the matches of --grep or --fts: give one of them")
            }
            guard !page.isOldestFirst && !arguments.flag(reverse) else {
                throw UsageError(message: "--rank and --reverse (--oldest-first) are two different orders: choose one")
            }
            query.order = .relevance
        }
        if let after = arguments.value(afterCursor) {
            guard query.cursor == nil else {
                throw UsageError(message: "--after-cursor and --cursor both say where to start: choose one")
            }
            guard query.order != .relevance else {
                throw UsageError(message: "--after-cursor lists in logging order: it does not combine with --rank")
            }
            query.cursor = try messageCursor(after, option: afterCursor)
            query.order = .oldestFirst
        }
        return query
    }

    /// The same command line (of `command`) with `--cursor` set to continue after this page.
    static func continuation(_ raw: [String], cursor: some CustomStringConvertible, command: String = "messages") -> String {
        var kept: [String] = []
        var afterDashes: [String] = []
        var index = 0
        while index < raw.count {
            let argument = raw[index]
            index += 1
            if argument == "--" {
                afterDashes = Array(raw[(index - 1)...])
                break
            }
            if argument == "--cursor" {
                index += 1
                continue
            }
            if argument.hasPrefix("--cursor=") { continue }
            kept.append(argument)
        }
        let words = ["logstore", command] + kept + ["--cursor", cursor.description] + afterDashes
        return words.map(Format.shellQuoted).joined(separator: " ")
    }
}
