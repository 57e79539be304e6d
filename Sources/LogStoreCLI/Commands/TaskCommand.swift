import Foundation
import LogStore

/// `logstore task <store> <task-id>`: everything stored about one network task.
enum TaskCommand: Command {
    static let spec = CommandSpec(
        name: "task",
        summary: "Show one network task: headers, bodies, timings, error and metadata.",
        positionals: [
            .init(name: "store", help: "The store directory, or an archive (.lsarchive) file."),
            .init(name: "task-id", help: "The task's id (the last column of 'logstore tasks'); leave it out with --latest.",
                  isOptional: true),
        ],
        options: [latest, full, json] + TasksCommand.filterOptions,
        discussion: """
            Bodies are pretty-printed when they are JSON, shown as text when they are UTF-8, and
            summarised by size otherwise. Secrets appear as the store keeps them: redacted
            (<private>). Timings are drawn per transaction (redirects and retries add some):
            DNS lookup, connect, TLS handshake, sending the request, waiting for the server and
            receiving the response, in milliseconds on a common time axis.

            --latest shows the newest task that 'logstore tasks' would list with the same filters
            (--errors, --status, --host, --label, --since, ...): the filters pick, --latest
            takes the first. Without --latest the filters are refused: an id names one task.

            The --json output names the bodies by key (as 'logstore blobs' lists them); the
            library reads one with LogStore.blobData(forKey:). States, types and fetch types
            are written by name.

            Examples:
              logstore task app.logstore 6F9619FF-8B86-D011-B42D-00C04FC964FF
              logstore task app.logstore 6F9619FF-8B86-D011-B42D-00C04FC964FF --json | jq .summary.state
              logstore task app.logstore --latest --errors
              logstore task app.logstore --latest --status 5xx --host api.example.com --since 1h
            """)

    static let latest = FlagOption("latest", "Show the newest task that matches the filters below, instead of one named by id.")
    static let full = FlagOption("full", "Print whole bodies (default: the first \(defaultBodyLines) lines of each).")
    static let json = FlagOption("json", "Print NetworkTaskDetails as JSON (pretty, sorted keys, ISO 8601 dates; bodies by key).")

    static let defaultBodyLines = 100

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        let id = try await taskID(arguments, console: console)
        let lineLimit = arguments.flag(full) ? nil : defaultBodyLines
        let loaded = try await StoreAccess.withReadonlyStore(path) { store -> (NetworkTaskDetails, Data?, Data?)? in
            guard let details = try await store.task(id: id) else { return nil }
            let request = try await details.requestBodyKey.asyncMap { try await store.blobData(forKey: $0) } ?? nil
            let response = try await details.responseBodyKey.asyncMap { try await store.blobData(forKey: $0) } ?? nil
            return (details, request, response)
        }
        guard let (details, requestBody, responseBody) = loaded else {
            throw CommandFailure(
                description: "no task with id \(id.uuidString) in \(Format.escaped(StoreAccess.url(path).path)): "
                    + "'logstore tasks \(Format.escaped(Format.shellQuoted(path)))' lists the ids (last column)",
                status: ExitStatus.notFound)
        }
        if arguments.flag(json) {
            console.line(try TaskRecord.pretty(details))
            return
        }
        for line in lines(details, requestBody: requestBody, responseBody: responseBody, lineLimit: lineLimit, style: console.style) {
            console.line(line)
        }
    }

    /// The id named, or with `--latest` the newest task the filters match.
    static func taskID(_ arguments: ParsedArguments, console: Console) async throws -> UUID {
        let path = arguments.positionals[0]
        let named = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        // The filters given, in the order `--help` lists them.
        let filters = TasksCommand.filterOptions.map(\.name).filter { arguments.flags.contains($0) || arguments.values[$0] != nil }
        guard arguments.flag(latest) else {
            guard let named else { throw UsageError(message: "missing <task-id>: give a task's id, or --latest with filters") }
            if let first = filters.first {
                throw UsageError(message: "--\(first) filters tasks for --latest: give it with --latest, or leave it out with an id")
            }
            return try ValueParsers.taskID(named)
        }
        if let named { throw UsageError(message: "--latest picks the task: give no <task-id> with it (got '\(named)')") }
        var query = try TasksCommand.filterQuery(
            arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        query.order = .newestFirst
        query.limit = 1
        guard let task = try await TasksCommand.tasks(query, in: path).tasks.first else {
            throw CommandFailure(
                description: "no task in \(Format.escaped(StoreAccess.url(path).path)) matches "
                    + (filters.isEmpty ? "(the store has no network tasks)" : "the filters (\(filters.map { "--\($0)" }.joined(separator: ", ")))"),
                status: ExitStatus.notFound)
        }
        return task.id
    }

    /// The whole human view of a task.
    static func lines(
        _ details: NetworkTaskDetails, requestBody: Data?, responseBody: Data?, lineLimit: Int?, style: TextStyle
    ) -> [String] {
        let task = details.summary
        var lines: [String] = []
        lines.append(style.bold(Format.escaped("\(task.method ?? "-") \(task.url ?? "(no URL)")")))
        var outcome: String
        switch (task.statusCode, task.state) {
        case (let code?, _): outcome = style.status(TaskFormat.status(code), code: code, state: task.state)
        case (nil, .pending): outcome = style.dim("pending")
        case (nil, _): outcome = style.boldRed("failed")
        }
        if let duration = task.duration { outcome += " in " + TaskFormat.milliseconds(duration) }
        lines.append("  → " + outcome)
        lines.append("")

        var rows: [(String, String)] = [
            ("Task", task.id.uuidString),
            ("Type", "\(typeName(task.taskType)), \(stateName(task.state))"),
            ("Direction", task.direction == .inbound ? "inbound (a request this process handled)" : "outbound (a call this process made)"),
            ("Started", style.time(task.createdAt)),
            ("Duration", task.duration.map(TaskFormat.milliseconds) ?? "unknown"),
            ("Label", Format.escaped(task.label)),
            ("Session", task.sessionID.uuidString),
        ]
        if let progress = task.progress {
            var text = "\(Format.bytes(progress.completed))"
            if progress.total > 0 {
                text += " of \(Format.bytes(progress.total))"
                if let fraction = progress.fractionCompleted { text += " (\(Int((fraction * 100).rounded(.down)))%)" }
            }
            rows.append(("Progress", text))
        }
        if let timeout = details.request?.timeout { rows.append(("Timeout", "\(Format.decimal(timeout, places: timeout < 10 ? 1 : 0)) s")) }
        if let description = details.taskDescription { rows.append(("Description", Format.escaped(description))) }
        let redirects = max(0, details.transactions.count - 1)
        if redirects > 0 { rows.append(("Transactions", "\(details.transactions.count) (redirects or retries)")) }
        lines += Format.fields(rows)

        // Request.
        lines.append("")
        lines.append(style.bold("Request headers"))
        lines += TaskFormat.headers(details.request?.headers ?? [:], style: style).map { "  " + $0 }
        lines += bodySection(
            "Request body",
            body(requestBody, size: task.requestBodySize, overLimit: details.isRequestBodyOverLimit,
                 contentType: details.request?.contentType),
            lineLimit: lineLimit, style: style)

        // Response.
        lines.append("")
        if let response = details.response {
            let status = response.statusCode.map { style.status(TaskFormat.status($0), code: $0, state: task.state) } ?? "no status"
            lines.append(style.bold("Response") + "  " + status)
            lines += TaskFormat.headers(response.headers, style: style).map { "  " + $0 }
            lines += bodySection(
                "Response body",
                body(responseBody, size: task.responseBodySize, overLimit: details.isResponseBodyOverLimit,
                     contentType: response.contentType ?? task.contentType),
                lineLimit: lineLimit, style: style)
        } else {
            lines.append(style.bold("Response") + "  " + style.dim(task.state == .pending ? "none yet" : "none"))
        }

        // Timings.
        if !details.transactions.isEmpty {
            lines.append("")
            lines.append(style.bold("Timings"))
            let end = task.duration.map { task.createdAt.addingTimeInterval($0) }
            lines += TaskFormat.waterfall(details.transactions, taskStart: task.createdAt, taskEnd: end, style: style)
                .map { "  " + $0 }
        }

        // Failures and metadata.
        var tail: [(String, String)] = []
        if let error = task.error {
            tail.append(("Error", Format.escaped("\(error.description) (\(error.domain) \(error.code))")))
        }
        if let decodingError = details.decodingError { tail.append(("Decoding error", Format.escaped(decodingError))) }
        var metadata = details.metadata
        if let format = metadata["imageFormat"], let width = metadata["imageWidth"], let height = metadata["imageHeight"] {
            tail.append(("Image", Format.escaped("\(format.uppercased()), \(width) × \(height) pixels")))
            for key in ["imageFormat", "imageWidth", "imageHeight"] { metadata[key] = nil }
        }
        if !tail.isEmpty {
            lines.append("")
            lines += Format.fields(tail).map { line in
                line.hasPrefix("Error:") || line.hasPrefix("Decoding error:") ? style.red(line) : line
            }
        }
        if !metadata.isEmpty {
            lines.append("")
            lines.append(style.bold("Metadata"))
            lines += Format.fields(metadata.sorted { $0.key < $1.key }.map { (Format.escaped($0.key), Format.escaped($0.value)) }, indent: 2)
        }
        return lines
    }

    private static func body(_ data: Data?, size: Int64, overLimit: Bool, contentType: String?) -> TaskFormat.Body {
        if overLimit { return .overLimit(size) }
        if let data { return .data(data, contentType: contentType) }
        return size > 0 ? .missing(size) : .none
    }

    private static func bodySection(_ title: String, _ body: TaskFormat.Body, lineLimit: Int?, style: TextStyle) -> [String] {
        let (summary, content) = TaskFormat.body(body, lineLimit: lineLimit, style: style)
        return [style.bold(title) + "  " + summary] + content.map { "  " + $0 }
    }

    static func typeName(_ type: NetworkTaskType) -> String {
        switch type {
        case .data: "data"
        case .download: "download"
        case .upload: "upload"
        case .stream: "stream"
        case .webSocket: "WebSocket"
        }
    }

    static func stateName(_ state: NetworkTaskState) -> String {
        switch state {
        case .pending: "pending"
        case .success: "success"
        case .failure: "failure"
        }
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
