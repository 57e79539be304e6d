import Foundation
import LogStore

/// `logstore tasks <store> [filters]`: one page of network tasks, newest first, with the cursor
/// of the next page.
enum TasksCommand: Command {
    static let spec = CommandSpec(
        name: "tasks",
        summary: "List network tasks, filtered by host, method, status, state, label, session and time.",
        positionals: [.init(name: "store", help: "The store directory.")],
        options: [
            .repeatable("host", "host", "Only this host (exact, any case); repeat for several."),
            .repeatable("method", "method", "Only this HTTP method (GET, post); repeat for several."),
            .value("status", "code", "Only this status: a code (200), a class (4xx) or a range (500-599)."),
            .repeatable("state", "state", "Only tasks in this state: pending, success or failure; repeat for several."),
        ] + PageFilters.options(
            items: "tasks", timed: "tasks started",
            labelHelp: "Only tasks whose technical message has this label; repeat for several.",
            defaultLimit: defaultLimit
        ) + [
            .flag("json", "Print NDJSON: one NetworkTaskSummary object per task."),
        ],
        discussion: """
            Each line: start time, method, status, duration, response body size, URL and the task id
            (for 'logstore task'). A task that failed without a response shows ERR and its error; a
            pending one shows ... and its progress. Statuses are coloured by class on a terminal.
            A status filter leaves out tasks without a response (use --state failure for those).

            Times are ISO 8601 (2025-03-01T12:00:00Z, 2025-03-01) or a time ago: 90s, 15m, 2h, 3d, 1w.

            Examples:
              logstore tasks app.logstore --status 5xx --since 1h
              logstore tasks app.logstore --host api.example.com --method POST --state failure --json
            """)

    static let defaultLimit = 100

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let query = try query(arguments, now: console.environment.currentDate)
        let page = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { try await $0.tasks(query) }

        if arguments.flag("json") {
            for task in page.tasks { console.line(try JSONOutput.line(task)) }
            if let next = page.nextCursor {
                console.errorLine("logstore: more tasks: continue with --cursor \(next)")
            }
            return
        }
        if page.tasks.isEmpty {
            console.line("No tasks match.")
            return
        }
        let methodWidth = min(8, page.tasks.map { ($0.method ?? "-").count }.max() ?? 3)
        for task in page.tasks {
            console.line(TaskFormat.line(task, methodWidth: methodWidth, style: console.style))
        }
        if let next = page.nextCursor {
            console.line(console.style.dim("-- more: \(MessagesCommand.continuation(arguments.raw, cursor: next, command: spec.name))"))
        }
    }

    /// The filters and page as a ``TaskQuery``.
    static func query(_ arguments: ParsedArguments, now: Date) throws(UsageError) -> TaskQuery {
        let page = try PageFilters(arguments, now: now, defaultLimit: defaultLimit)
        var query = TaskQuery(
            labels: page.labels, sessions: page.sessions, since: page.since, until: page.until,
            order: page.isOldestFirst ? .oldestFirst : .newestFirst, limit: page.limit,
            cursor: try page.cursor(TaskQuery.Cursor.self, example: "t1234"))
        query.hosts = arguments.all("host")
        for method in arguments.all("method") {
            query.methods.append(try ValueParsers.method(method))
        }
        if let status = arguments.value("status") {
            query.statusCodes = try ValueParsers.statusCodes(status)
        }
        for state in arguments.all("state") {
            let parsed = try ValueParsers.taskState(state)
            if !query.states.contains(parsed) { query.states.append(parsed) }
        }
        return query
    }
}
