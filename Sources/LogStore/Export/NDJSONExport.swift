import Foundation

/// The `.ndjson` format: one JSON object per line, the messages first, then the network tasks,
/// each oldest first. Fields come in a fixed order and every field is present on every line of its
/// type (`null` when it has no value), so lines of one type have one shape; the names are an
/// interface, listed in README.md ("NDJSON fields").
enum NDJSONExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        var counts = ExportCounts()
        var sessions = Set<UUID>()
        var rows = RowWriter(tables: try source.rowTables())
        var sessionRowIDs = Set<Int64>()
        var lastSessionRowID: Int64?
        counts.messages = try source.forEachMessage(
            row: { row in
                try progress.advance(.messages)
                // Formatted straight into the output's buffer.
                try output.append { rows.append(row, to: &$0) }
                // A hash per session change, not per row.
                if row.sessionRowID != lastSessionRowID {
                    lastSessionRowID = row.sessionRowID
                    sessionRowIDs.insert(row.sessionRowID)
                }
            },
            message: { message in
                try progress.advance(.messages)
                try output.append { appendMessage(message, to: &$0) }
                sessions.insert(message.sessionID)
            })
        for rowID in sessionRowIDs { sessions.insert(rows.tables.sessions.uuid(for: rowID)) }
        var line = ExportLine()
        counts.tasks = try source.forEachTask { task in
            try progress.advance(.tasks)
            line.reset()
            appendTask(task, details: try source.details(of: task.id), to: &line)
            try output.write(line.bytes)
            sessions.insert(task.sessionID)
        }
        counts.sessions = sessions.count
        return counts
    }

    static func appendMessage(_ message: LogStore.Message, to line: inout ExportLine) {
        line.append("{\"type\":\"message\"")
        line.appendKey("id")
        line.append(integer: message.id)
        line.appendKey("time")
        appendTime(message.createdAt, to: &line)
        line.appendKey("level")
        line.append(jsonString: message.level.name)
        line.appendKey("label")
        line.append(jsonString: message.label)
        line.appendKey("text")
        line.append(jsonString: message.text)
        line.appendKey("metadata")
        line.append(jsonMetadata: message.metadata)
        line.appendKey("file")
        line.append(jsonString: message.file)
        line.appendKey("function")
        line.append(jsonString: message.function)
        line.appendKey("line")
        line.append(jsonInteger: message.line)
        line.appendKey("threadID")
        line.append(jsonInteger: message.threadID)
        line.appendKey("threadName")
        line.append(jsonString: message.threadName)
        line.appendKey("session")
        line.append(jsonString: message.sessionID.uuidString)
        line.append("}\n")
    }

    static func appendTask(_ task: NetworkTaskSummary, details: NetworkTaskDetails?, to line: inout ExportLine) {
        line.append("{\"type\":\"task\"")
        line.appendKey("id")
        line.append(jsonString: task.id.uuidString)
        line.appendKey("rowID")
        line.append(integer: task.rowID)
        line.appendKey("time")
        appendTime(task.createdAt, to: &line)
        line.appendKey("label")
        line.append(jsonString: task.label)
        line.appendKey("taskType")
        line.append(jsonString: name(of: task.taskType))
        line.appendKey("state")
        line.append(jsonString: name(of: task.state))
        line.appendKey("direction")
        line.append(jsonString: task.direction.rawValue)
        line.appendKey("method")
        line.append(jsonString: task.method)
        line.appendKey("url")
        line.append(jsonString: task.url)
        line.appendKey("host")
        line.append(jsonString: task.host)
        line.appendKey("status")
        line.append(jsonInteger: task.statusCode)
        line.appendKey("contentType")
        line.append(jsonString: task.contentType)
        line.appendKey("duration")
        if let duration = task.duration { line.append(jsonNumber: duration) } else { line.append("null") }
        line.appendKey("requestBodySize")
        line.append(integer: task.requestBodySize)
        line.appendKey("responseBodySize")
        line.append(integer: task.responseBodySize)
        line.appendKey("error")
        if let error = task.error {
            line.append("{\"code\":")
            line.append(integer: error.code)
            line.appendKey("domain")
            line.append(jsonString: error.domain)
            line.appendKey("description")
            line.append(jsonString: error.description)
            line.append("}")
        } else {
            line.append("null")
        }
        line.appendKey("requestHeaders")
        line.append(jsonStrings: details?.request?.headers)
        line.appendKey("responseHeaders")
        line.append(jsonStrings: details?.response?.headers)
        line.appendKey("requestBodyKey")
        line.append(jsonString: details?.requestBodyKey)
        line.appendKey("responseBodyKey")
        line.append(jsonString: details?.responseBodyKey)
        line.appendKey("taskDescription")
        line.append(jsonString: details?.taskDescription)
        line.appendKey("decodingError")
        line.append(jsonString: details?.decodingError)
        line.appendKey("session")
        line.append(jsonString: task.sessionID.uuidString)
        line.append("}\n")
    }

    /// `"time"` as ISO 8601 text, then `"timestamp"`, the same instant in seconds since 1970
    /// for tools that sort or subtract.
    static func appendTime(_ date: Date, to line: inout ExportLine) {
        line.append(byte: UInt8(ascii: "\""))
        line.append(timestamp: date)
        line.append(byte: UInt8(ascii: "\""))
        line.appendKey("timestamp")
        line.append(jsonMilliseconds: (date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Each level's name as a JSON string, by raw value.
    static let levelStrings: [[UInt8]] = LogStore.Level.allCases.map { level in
        var line = ExportLine()
        line.append(jsonString: level.name)
        return line.bytes
    }

    /// Spelled out here rather than taken from the case names, which may be renamed in Swift.
    static func name(of type: NetworkTaskType) -> String {
        switch type {
        case .data: "data"
        case .download: "download"
        case .upload: "upload"
        case .stream: "stream"
        case .webSocket: "webSocket"
        }
    }

    static func name(of state: NetworkTaskState) -> String {
        switch state {
        case .pending: "pending"
        case .success: "success"
        case .failure: "failure"
        }
    }
}
