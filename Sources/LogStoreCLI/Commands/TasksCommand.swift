import Foundation
import LogStore

/// `logstore tasks <store> [filters]`: one page of network tasks, newest first, with the cursor
/// of the next page.
enum TasksCommand: Command {
    static let spec = CommandSpec(
        name: "tasks",
        summary: "List network tasks, filtered by URL words, host, path, method, status, state, duration, content type, "
            + "label, session and time.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: filterOptions + paging.all + [json, ids],
        discussion: """
            A header, then one row per task: start time, direction (→ a call made, ← a request
            handled), method, status, duration, response body size, URL and the task id (for
            'logstore task'); on a terminal long URLs are clipped to its width (piped, nothing
            is). A task that failed without a response shows ERR and its error; a
            pending one shows ... and its progress. Statuses are coloured by class on a terminal.
            A status filter leaves out tasks without a response (use --state failure for those).

            --grep finds the words of the URL and of its decoded path, without case or accents:
            'api.example.com', 'orders', 'cafe' (in /café). --fts takes SQLite's FTS5 syntax
            instead: 'timeout OR refused', 'ord*', 'users NOT admin', 'path : img'. A path prefix
            is compared exactly, character for character: /api/v1 also matches /api/v10 (end it
            with / for whole segments). Content types ignore case and parameters.

            Times: a time ago (90s, 15m, 2h, 3d, 1w), now, today, yesterday, or 2026-12-01,
            2026-12-01T10:00[:30] with Z or +02:00 (local time without; UTC with --utc).

            A page that is not the last ends with the command that continues it. With --json or
            --ids that hint goes to standard error, and only when standard output is a terminal:
            piped, the output is the tasks and nothing else. A script continues a --json page with
            --cursor t<rowID> of its last line. 'logstore task <store> --latest' shows the newest
            task that matches these filters.

            Examples:
              logstore tasks app.logstore --status 5xx --since 1h
              logstore tasks app.logstore --host api.example.com --method POST --state failure --json
              logstore tasks app.logstore --grep orders --path /api/v1/ --min-duration 250ms --errors
              logstore tasks app.logstore --errors --ids --limit 5 | xargs -n1 logstore task app.logstore
            """)

    static let grep = ValueOption("grep", "text", "Only tasks whose URL has these words (all of them, as typed; no operators).")
    static let fts = ValueOption("fts", "query", "Only tasks whose URL matches this FTS5 query (OR, NOT, prefix*, \"phrase\").")
    static let host = RepeatableOption("host", "host", "Only this host (exact, any case); repeat for several.")
    static let path = RepeatableOption("path", "prefix", "Only paths starting with this prefix (/api/v1); repeat for several.")
    static let method = RepeatableOption("method", "method", "Only this HTTP method (GET, post); repeat for several.")
    static let status = ValueOption("status", "code", "Only this status: a code (200), a class (4xx) or a range (500-599).")
    static let state = RepeatableOption(
        "state", "state", "Only tasks in this state: pending, success or failure; repeat for several.")
    static let errors = FlagOption("errors", "Only failed tasks: an error, or a status of 400 and up.")
    static let minDuration = ValueOption("min-duration", "time", "Only tasks that took at least this long: 250ms, 1.5s, 2m.")
    static let maxDuration = ValueOption("max-duration", "time", "Only tasks that took at most this long.")
    static let contentType = RepeatableOption(
        "content-type", "type", "Only this response media type (application/json, image/*); repeat for several.")
    static let direction = ValueOption(
        "direction", "dir", "Only inbound tasks (requests the server handled) or outbound ones (calls it made).")
    static let window = WindowFilters.Options(
        timed: "tasks started", labelHelp: "Only tasks whose technical message has this label; repeat for several.")
    static let paging = Paging.Options(items: "tasks", defaultLimit: defaultLimit)
    static let json = FlagOption("json", "Print NDJSON: one NetworkTaskSummary object per task.")
    static let ids = FlagOption("ids", "Print only the task ids, one per line (for 'logstore task' and scripts).")
    /// The filters, which `task --latest` takes too: whatever filter `tasks` gains, it has.
    static let filterOptions: [any CommandOption] =
        [grep, fts, host, path, method, status, state, errors, minDuration, maxDuration, contentType, direction] + window.all

    static let defaultLimit = 100

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        if arguments.flag(json) && arguments.flag(ids) {
            throw UsageError(message: "--json and --ids are two output formats: choose one")
        }
        let query = try query(arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        let page = try await tasks(query, in: arguments.positionals[0])

        if arguments.flag(json) || arguments.flag(ids) {
            for task in page.tasks {
                console.line(arguments.flag(ids) ? task.id.uuidString : try TaskRecord.line(task))
            }
            // For the person at the terminal; a pipeline reads data only (a script pages with
            // the last line's rowID, or takes --limit it needs).
            if let next = page.nextCursor, console.environment.outputIsTerminal {
                console.errorLine("logstore: more tasks: continue with --cursor \(next)")
            }
            return
        }
        if page.tasks.isEmpty {
            console.line("No tasks match.")
            return
        }
        for line in TaskFormat.table(page.tasks, style: console.style, width: console.environment.terminalWidth) {
            console.line(line)
        }
        if let next = page.nextCursor {
            console.line(console.style.dim("-- more: \(MessagesCommand.continuation(arguments.raw, cursor: next, command: spec.name))"))
        }
    }

    /// One page of `query` from the store or archive at `path`; an FTS5 query SQLite refuses is
    /// a usage error.
    static func tasks(_ query: TaskQuery, in path: String) async throws -> TaskPage {
        do {
            return try await StoreAccess.withReadonlyStore(path) { try await $0.tasks(query) }
        } catch let error as LogStoreError where error.kind == .invalidArgument && query.urlText?.syntax == .fts5 {
            // FTS5 refused the query the user typed: a usage error, not a failing store.
            throw UsageError(message: "--fts: \(error.reason ?? error.description)")
        }
    }

    /// The filters and page as a ``TaskQuery``.
    static func query(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> TaskQuery {
        let page = try Paging(arguments, paging)
        var query = try filterQuery(arguments, now: now, timeZone: timeZone)
        query.order = page.isOldestFirst ? .oldestFirst : .newestFirst
        query.limit = page.limit
        query.cursor = try page.cursor(TaskQuery.Cursor.self, example: "t1234")
        return query
    }

    /// The filters of ``filterOptions`` as a ``TaskQuery`` (newest first, default page).
    static func filterQuery(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> TaskQuery {
        let window = try WindowFilters(arguments, Self.window, now: now, timeZone: timeZone)
        var query = TaskQuery(labels: window.labels, sessions: window.sessions, since: window.since, until: window.until)
        query.hosts = arguments.all(host)
        for text in arguments.all(method) {
            query.methods.append(try ValueParsers.method(text))
        }
        if let text = arguments.value(status) {
            query.statusCodes = try ValueParsers.statusCodes(text)
        }
        for text in arguments.all(state) {
            let parsed = try ValueParsers.taskState(text)
            if !query.states.contains(parsed) { query.states.append(parsed) }
        }
        switch (arguments.value(grep), arguments.value(fts)) {
        case (_?, _?): throw UsageError(message: "--grep and --fts are two ways of one search: give one")
        case (let text?, nil): query.urlText = .plain(text)
        case (nil, let text?): query.urlText = .fts5(text)
        case (nil, nil): break
        }
        query.paths = try arguments.all(path).map { prefix throws(UsageError) in try ValueParsers.pathPrefix(prefix) }
        if arguments.flag(errors) { query.isFailure = true }
        let minimum = try arguments.value(minDuration).map { text throws(UsageError) in
            try ValueParsers.taskDuration(text, option: minDuration.name)
        }
        let maximum = try arguments.value(maxDuration).map { text throws(UsageError) in
            try ValueParsers.taskDuration(text, option: maxDuration.name)
        }
        if minimum != nil || maximum != nil {
            let lower = minimum ?? 0
            let upper = maximum ?? .infinity
            guard lower <= upper else {
                throw UsageError(message: "--min-duration must not be above --max-duration")
            }
            query.durations = lower...upper
        }
        if let text = arguments.value(direction) {
            query.directions = [try ValueParsers.taskDirection(text)]
        }
        query.contentTypes = try arguments.all(contentType).map { type throws(UsageError) in
            try ValueParsers.contentType(type)
        }
        return query
    }
}
