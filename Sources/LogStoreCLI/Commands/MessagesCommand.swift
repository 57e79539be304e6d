import Foundation
import LogStore

/// `logstore messages <store> [filters]`: one page of messages, newest first, with the cursor
/// of the next page.
enum MessagesCommand: Command {
    static let spec = CommandSpec(
        name: "messages",
        summary: "List messages, filtered by level, label, session and time, one page at a time.",
        positionals: [.init(name: "store", help: "The store directory.")],
        options: [
            .value("level", "level", "Only this level and above (warning), or a range (info...error)."),
        ] + PageFilters.options(
            items: "messages", timed: "messages", labelHelp: "Only this label; repeat for several.",
            defaultLimit: defaultLimit
        ) + [
            .flag("task-messages", "Include the technical messages of network tasks (default: logged messages only)."),
            .flag("json", "Print NDJSON: one JSON object per message."),
        ],
        discussion: """
            Times are ISO 8601 (2025-03-01T12:00:00Z, 2025-03-01) or a time ago: 90s, 15m, 2h, 3d, 1w.
            Levels: trace, debug, info, notice, warning, error, critical.

            Examples:
              logstore messages app.logstore --level warning --since 2h
              logstore messages app.logstore --label http --label db --limit 50 --json
              logstore messages app.logstore --task-messages --label network
            """)

    static let defaultLimit = 100

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let query = try query(arguments, now: console.environment.currentDate)
        let pageSize = query.limit
        var lookahead = query
        // One more than shown tells whether a next page exists without printing a cursor that
        // leads to an empty page.
        lookahead.limit = pageSize + 1
        let page = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { try await $0.messages(lookahead) }
        let messages = page.messages.prefix(pageSize)
        let next = page.messages.count > pageSize ? messages.last.map { MessageQuery.Cursor(lastID: $0.id) } : nil

        if arguments.flag("json") {
            for message in messages { console.line(try JSONOutput.line(MessageRecord(message: message))) }
            if let next {
                console.errorLine("logstore: more messages: continue with --cursor \(next)")
            }
            return
        }
        if messages.isEmpty {
            console.line("No messages match.")
            return
        }
        let labelWidth = min(16, messages.map(\.label.count).max() ?? 0)
        for message in messages {
            console.line(MessageFormat.line(message, labelWidth: labelWidth, style: console.style))
        }
        if let next {
            console.line(console.style.dim("-- more: \(continuation(arguments.raw, cursor: next))"))
        }
    }

    /// The filters and page as a ``MessageQuery``.
    static func query(_ arguments: ParsedArguments, now: Date) throws(UsageError) -> MessageQuery {
        let page = try PageFilters(arguments, now: now, defaultLimit: defaultLimit)
        var query = MessageQuery(
            labels: page.labels, sessions: page.sessions, since: page.since, until: page.until,
            order: page.isOldestFirst ? .oldestFirst : .newestFirst, limit: page.limit,
            cursor: try page.cursor(MessageQuery.Cursor.self, example: "m1234"),
            includesTaskMessages: arguments.flag("task-messages"))
        if let level = arguments.value("level") {
            query.levels = try ValueParsers.levels(level)
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
