/// A network task as one log record: a line a person reads in the collector's log view, and the
/// OpenTelemetry HTTP semantic conventions' attributes, which its queries and dashboards know.
///
/// | field | value |
/// |---|---|
/// | `timeUnixNano` | when the task started |
/// | severity | error for a task that failed with an error, with a status of 500 and up, with 400–499 on a call made (outbound), or in the failure state; warning for 400–499 on a request handled (inbound), which is the client's mistake, as the conventions say for server spans; info otherwise, pending tasks too |
/// | body | `GET https://host/path → 200 (12 ms)`; `→ <error>` without a status, `→ pending` while it runs |
/// | `http.request.method`, `url.full`, `server.address` | method, URL (redacted as stored), host |
/// | `http.response.status_code` | the status, when a response arrived |
/// | `http.response.header.content-type` | the response's content type, as a one-string array (the conventions' header form) |
/// | `http.request.body.size`, `http.response.body.size` | body sizes in bytes |
/// | `error.type`, `error.message` | `<domain> <code>` and the description of the task's error; without one, a status of 400 and up as text for `error.type` |
/// | `logstore.task.id`, `.row_id`, `.state`, `.type`, `.direction`, `.duration` | the task's identity, row, state, kind, direction, duration in seconds (a double) |
/// | `logstore.label`, `logstore.session.id` | the label of its technical message, its session |
/// | `traceId`, `spanId`, `flags` | from the request's `traceparent`, when valid |
extension OTLPLogsEncoder {
    /// Appends the record of one task.
    func append(_ task: ShippedTask, to json: inout OTLPJSONWriter) {
        let summary = task.summary
        let level = Self.level(of: summary)
        json.append("{")
        json.append(times: summary.createdAt)
        json.append(",\"severityNumber\":")
        json.bytes.append(decimal: Self.severityNumber(level))
        json.append(",\"severityText\":")
        json.append(string: level.name)
        json.append(",\"body\":{\"stringValue\":\"")
        Self.appendLine(summary, to: &json)
        json.append("\"},\"attributes\":[")
        var first = true
        if let method = summary.method {
            json.attribute("http.request.method", string: method, first: &first)
        }
        if let url = summary.url {
            json.attribute("url.full", string: url, first: &first)
        }
        if let host = summary.host {
            json.attribute("server.address", string: host, first: &first)
        }
        if let status = summary.statusCode {
            json.attribute("http.response.status_code", integer: status, first: &first)
        }
        if let contentType = summary.contentType {
            json.attribute("http.response.header.content-type", strings: [contentType], first: &first)
        }
        json.attribute("http.request.body.size", integer: summary.requestBodySize, first: &first)
        json.attribute("http.response.body.size", integer: summary.responseBodySize, first: &first)
        if let error = summary.error {
            json.attribute("error.type", string: "\(error.domain) \(error.code)", first: &first)
            json.attribute("error.message", string: error.description, first: &first)
        } else if let status = summary.statusCode, status >= 400 {
            json.attribute("error.type", string: String(status), first: &first)
        }
        json.attribute("logstore.task.id", string: summary.id.uuidString, first: &first)
        json.attribute("logstore.task.row_id", integer: summary.rowID, first: &first)
        json.attribute("logstore.task.state", string: NDJSONExport.name(of: summary.state), first: &first)
        json.attribute("logstore.task.type", string: NDJSONExport.name(of: summary.taskType), first: &first)
        json.attribute("logstore.task.direction", string: summary.direction.rawValue, first: &first)
        if let duration = summary.duration {
            json.attribute("logstore.task.duration", double: duration, first: &first)
        }
        json.attribute("logstore.label", string: summary.label, first: &first)
        json.attribute("logstore.session.id", string: summary.sessionID.uuidString, first: &first)
        json.append("]")
        if let context = TraceContext(traceparent: task.traceparent) {
            json.append(traceContext: context)
        }
        json.append("}")
    }

    /// The severity of a task's record, by the rule in the table above.
    static func level(of task: NetworkTaskSummary) -> LogStore.Level {
        if task.error != nil { return .error }
        if let status = task.statusCode, status >= 400 {
            return status < 500 && task.direction == .inbound ? .warning : .error
        }
        return task.state == .failure ? .error : .info
    }

    /// Appends the body's line, inside its quotes: written piece by piece into the request
    /// rather than built as a string first.
    private static func appendLine(_ task: NetworkTaskSummary, to json: inout OTLPJSONWriter) {
        var hasSubject = false
        if let method = task.method, !method.isEmpty {
            json.bytes.append(escaping: method, .json)
            hasSubject = true
        }
        if let url = task.url ?? task.host, !url.isEmpty {
            if hasSubject { json.append(" ") }
            json.bytes.append(escaping: url, .json)
            hasSubject = true
        }
        if !hasSubject { json.append("network task") }
        json.append(" \u{2192} ")
        if let status = task.statusCode {
            json.bytes.append(decimal: status)
            if let error = task.error {
                json.append(", ")
                json.bytes.append(escaping: error.description, .json)
            }
        } else if let error = task.error {
            json.bytes.append(escaping: error.description, .json)
        } else {
            switch task.state {
            case .pending: json.append("pending")
            case .success: json.append("no response")
            case .failure: json.append("failed")
            }
        }
        if let duration = task.duration, let milliseconds = Milliseconds.rounded(duration * 1000), milliseconds >= 0 {
            json.append(" (")
            json.bytes.append(decimal: milliseconds)
            json.append(" ms)")
        }
    }
}
