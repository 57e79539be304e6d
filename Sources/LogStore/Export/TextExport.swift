import Foundation

/// The `.text` format, for `grep` and `less`: one line per message, then one line per network
/// task, each oldest first, with every logged string escaped so that nothing breaks the
/// one-line-per-row rule or reaches the reader's terminal as a control sequence.
///
/// ```
/// # session 6F9619FF-8B86-D011-B42D-00C04FC964FF started 2025-06-15T14:00:00.000Z: api 1.4.2 pid 4242 on web-1
/// 2025-06-15T14:00:01.250Z WARNING  [http] slow response  path=/orders status=503  (Server.swift:88)
/// # network tasks
/// 2025-06-15T14:00:02.000Z FAILURE  [network] GET 503 https://api.example.com/orders 1204ms sent=0B received=52B
/// ```
///
/// Lines starting with `#` are headers: a session's when the session changes, and the start of the
/// tasks. With ``ExportOptions/includesTaskDetails`` each task's request headers (`> `) and
/// response headers (`< `) follow it, indented, as `curl -v` prints them.
enum TextExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        var counts = ExportCounts()
        let sessions = Dictionary(try source.sessions().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<UUID>()
        var current: UUID?
        var rows = RowWriter(tables: try source.rowTables())
        var currentRowID: Int64?
        func changeSession(to id: UUID, _ line: inout ExportLine) {
            guard id != current else { return }
            current = id
            appendSessionHeader(id, sessions[id], to: &line)
            seen.insert(id)
        }
        // Messages are formatted straight into the output's buffer.
        counts.messages = try source.forEachMessage(
            row: { row in
                try progress.advance(.messages)
                try output.append { line in
                    let rowID = row.sessionRowID
                    if rowID != currentRowID {
                        currentRowID = rowID
                        changeSession(to: rows.tables.sessions.uuid(for: rowID), &line)
                    }
                    rows.append(row, to: &line)
                }
            },
            message: { message in
                try progress.advance(.messages)
                try output.append { line in
                    changeSession(to: message.sessionID, &line)
                    appendMessage(message, to: &line)
                }
            })
        var line = ExportLine()
        current = nil
        let withDetails = source.options.includesTaskDetails
        var isFirstTask = true
        counts.tasks = try source.forEachTask { task in
            try progress.advance(.tasks)
            line.reset()
            if isFirstTask {
                isFirstTask = false
                line.append("# network tasks\n")
            }
            if task.sessionID != current {
                current = task.sessionID
                appendSessionHeader(task.sessionID, sessions[task.sessionID], to: &line)
                seen.insert(task.sessionID)
            }
            appendTask(task, to: &line)
            if withDetails, let details = try source.details(of: task.id) {
                appendHeaders(details.request?.headers, marker: ">", to: &line)
                appendHeaders(details.response?.headers, marker: "<", to: &line)
            }
            try output.write(line.bytes)
        }
        counts.sessions = seen.count
        return counts
    }

    static func appendMessage(_ message: LogStore.Message, to line: inout ExportLine) {
        line.append(timestamp: message.createdAt)
        line.append(byte: UInt8(ascii: " "))
        appendColumn(levelNames[Int(message.level.rawValue)], to: &line)
        appendLabel(message.label, to: &line)
        line.append(message.text, escapedFor: .text)
        if !message.metadata.isEmpty {
            line.append("  ")
            appendMetadata(message.metadata, to: &line)
        }
        if let file = message.file, !file.isEmpty {
            line.append("  (")
            line.append(file, escapedFor: .text)
            if let number = message.line {
                line.append(byte: UInt8(ascii: ":"))
                line.append(integer: number)
            }
            line.append(")")
        }
        line.append(byte: UInt8(ascii: "\n"))
    }

    /// `time STATE [label] METHOD STATUS URL DURATION sent=…B received=…B`, then the error; a
    /// request this process handled has `inbound` before its method (outbound calls, most
    /// tasks, are left unmarked).
    static func appendTask(_ task: NetworkTaskSummary, to line: inout ExportLine) {
        line.append(timestamp: task.createdAt)
        line.append(byte: UInt8(ascii: " "))
        appendColumn(stateNames[task.state] ?? "", to: &line)
        appendLabel(task.label, to: &line)
        if task.direction == .inbound { line.append("inbound ") }
        line.append(task.method.map(Self.nonEmpty) ?? "-", escapedFor: .text)
        line.append(byte: UInt8(ascii: " "))
        if let status = task.statusCode { line.append(integer: status) } else { line.append("---") }
        line.append(byte: UInt8(ascii: " "))
        line.append(task.url.map(Self.nonEmpty) ?? "-", escapedFor: .text)
        line.append(byte: UInt8(ascii: " "))
        if let duration = task.duration, let milliseconds = Milliseconds.rounded(duration * 1000) {
            line.append(integer: milliseconds)
            line.append("ms")
        } else {
            line.append("-")
        }
        line.append(" sent=")
        line.append(integer: task.requestBodySize)
        line.append("B received=")
        line.append(integer: task.responseBodySize)
        line.append("B")
        if let error = task.error {
            line.append("  error=")
            line.append(error.domain, escapedFor: .text)
            line.append(byte: UInt8(ascii: " "))
            line.append(integer: error.code)
            line.append(": ")
            line.append(error.description, escapedFor: .text)
        }
        line.append(byte: UInt8(ascii: "\n"))
    }

    /// `# session ID started TIME: APP VERSION pid PID on HOST`.
    static func appendSessionHeader(_ id: UUID, _ session: LogStore.Session?, to line: inout ExportLine) {
        line.append("# session ")
        line.appendUnescaped(id.uuidString)
        if let session {
            line.append(" started ")
            line.append(timestamp: session.startDate)
            line.append(": ")
            line.append(session.app.name, escapedFor: .text)
            if let version = session.app.version {
                line.append(byte: UInt8(ascii: " "))
                line.append(version, escapedFor: .text)
            }
            line.append(" pid ")
            line.append(integer: session.app.pid)
            line.append(" on ")
            line.append(session.host.hostname, escapedFor: .text)
        }
        line.append(byte: UInt8(ascii: "\n"))
    }

    /// `    > Name: value` lines, in ``HeaderOrder``.
    private static func appendHeaders(_ headers: [String: String]?, marker: StaticString, to line: inout ExportLine) {
        guard let headers else { return }
        for pair in HeaderOrder.sorted(headers) {
            line.append("    ")
            line.append(marker)
            line.append(byte: UInt8(ascii: " "))
            line.append(pair.name, escapedFor: .text)
            line.append(": ")
            line.append(pair.value, escapedFor: .text)
            line.append(byte: UInt8(ascii: "\n"))
        }
    }

    /// `key=value` pairs, keys sorted; nested dictionaries as `{key=value …}`, arrays as `[a,b]`;
    /// keys and values that are empty or hold a space, `=`, a quote or a bracket are quoted,
    /// so a pair always reads back as one.
    static func appendMetadata(_ metadata: LogStore.Metadata, to line: inout ExportLine) {
        for (position, key) in metadata.keys.sorted().enumerated() {
            if position > 0 { line.append(byte: UInt8(ascii: " ")) }
            appendScalar(key, to: &line)
            line.append(byte: UInt8(ascii: "="))
            appendMetadataValue(metadata[key] ?? .string(""), to: &line)
        }
    }

    private static func appendMetadataValue(_ value: LogStore.MetadataValue, to line: inout ExportLine) {
        switch value {
        case .string(let text): appendScalar(text, to: &line)
        case .stringConvertible(let convertible): appendScalar(convertible.description, to: &line)
        case .dictionary(let dictionary):
            line.append(byte: UInt8(ascii: "{"))
            appendMetadata(dictionary, to: &line)
            line.append(byte: UInt8(ascii: "}"))
        case .array(let values):
            line.append(byte: UInt8(ascii: "["))
            for (position, element) in values.enumerated() {
                if position > 0 { line.append(byte: UInt8(ascii: ",")) }
                appendMetadataValue(element, to: &line)
            }
            line.append(byte: UInt8(ascii: "]"))
        }
    }

    private static func appendScalar(_ text: String, to line: inout ExportLine) {
        var text = text
        text.withUTF8 { line.bytes.append(textScalar: $0) }
    }

    /// The name, then spaces to the column's width and at least one: a longer name shifts the
    /// rest of the line rather than touching it.
    private static func appendColumn(_ name: String, to line: inout ExportLine) {
        line.appendUnescaped(name)
        for _ in 0..<max(1, columnWidth + 1 - name.utf8.count) { line.append(byte: UInt8(ascii: " ")) }
    }

    /// `[label] `, with the label's brackets escaped: `api] CRITICAL [x` cannot close the column
    /// and put a level of its own beside the real one.
    private static func appendLabel(_ label: String, to line: inout ExportLine) {
        line.append(byte: UInt8(ascii: "["))
        line.append(label, escapedFor: .label)
        line.append("] ")
    }

    private static func nonEmpty(_ text: String) -> String { text.isEmpty ? "-" : text }

    /// The level and state column: as wide as `CRITICAL`.
    private static let columnWidth = 8
    private static let levelNames = LogStore.Level.allCases.map { $0.name.uppercased() }
    /// Each level's column as ``appendColumn(_:to:)`` writes it, by raw value.
    static let levelColumns: [[UInt8]] = levelNames.map { name in
        var line = ExportLine()
        appendColumn(name, to: &line)
        return line.bytes
    }
    private static let stateNames: [NetworkTaskState: String] = [.pending: "PENDING", .success: "SUCCESS", .failure: "FAILURE"]
}
