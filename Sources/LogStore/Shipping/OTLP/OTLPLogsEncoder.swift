import Foundation

/// The resource every record of a request shares: the process the rows come from.
struct OTLPResource: Sendable {
    /// `service.name`: the logical service, as a collector groups it.
    var serviceName: String
    /// `service.instance.id`: this instance of the service.
    var serviceInstanceID: String
    /// `host.name`: the machine.
    var hostName: String
}

/// Stored messages and network tasks as one OTLP/HTTP JSON `ExportLogsServiceRequest`, the body
/// a collector's `/v1/logs` accepts with `Content-Type: application/json`.
///
/// A message becomes a log record with its level as severity (as swift-otel maps swift-log's
/// levels: trace 1, debug 5, info 9, notice 10, warning 13, error 17, critical 18, and the
/// lowercase level name as `severityText`), its text as body, and its metadata and source as
/// attributes. A task becomes one record described in `OTLPLogsEncoder+Tasks.swift`.
///
/// ```swift
/// let encoder = OTLPLogsEncoder(resource: OTLPResource(
///     serviceName: "orders", serviceInstanceID: "a1", hostName: "web-1"))
/// let body = encoder.encode(messages: page.messages, tasks: [])
/// ```
struct OTLPLogsEncoder: Sendable {
    /// The request's start, up to the first record: the same for every request, so made once.
    private let head: [UInt8]

    /// The attributes of a message's own facts, which metadata of the same name does not repeat
    /// (OTLP wants a record's keys unique; the stored fact is the one to trust).
    private static let messageKeys: Set<String> = [
        "logstore.id", "logstore.label", "logstore.session.id", "code.filepath", "code.function",
        "code.lineno", "thread.id", "thread.name",
    ]

    /// An encoder for rows of the process `resource` describes.
    init(resource: OTLPResource) {
        var json = OTLPJSONWriter(capacity: 256)
        json.append("{\"resourceLogs\":[{\"resource\":{\"attributes\":[")
        var first = true
        json.attribute("service.name", string: resource.serviceName, first: &first)
        json.attribute("service.instance.id", string: resource.serviceInstanceID, first: &first)
        json.attribute("host.name", string: resource.hostName, first: &first)
        json.append("]},\"scopeLogs\":[{\"scope\":{\"name\":\"LogStore\",\"version\":")
        json.append(string: LogStore.Version.library.description)
        json.append("},\"logRecords\":[")
        head = json.bytes
    }

    /// One `ExportLogsServiceRequest` as OTLP/HTTP JSON (UTF-8): one `resourceLogs` with one
    /// `scopeLogs` (scope `LogStore` at the library's version), the messages' records, then the
    /// tasks'. Equal input gives equal bytes.
    func encode(messages: [LogStore.Message], tasks: [ShippedTask]) -> [UInt8] {
        // Room for the texts and the fields around them, so the buffer rarely grows.
        var capacity = head.count + 16 + tasks.count * 900
        for message in messages { capacity += message.text.utf8.count + 400 }
        var json = OTLPJSONWriter(capacity: capacity)
        json.bytes.append(contentsOf: head)
        var first = true
        for message in messages {
            json.separate(&first)
            append(message, to: &json)
        }
        for task in tasks {
            json.separate(&first)
            append(task, to: &json)
        }
        json.append("]}]}]}")
        return json.bytes
    }

    /// Appends the record of one message.
    ///
    /// Its attributes: `logstore.id`, `logstore.label`, `logstore.session.id`; `code.filepath`
    /// (the file name the store keeps), `code.function` and `code.lineno` when it has a source
    /// location (a task's technical message has none, and stores of schema 3 kept `""` and 0);
    /// `thread.id` and `thread.name` when known; then every metadata entry in key order, except
    /// those named like one of these.
    private func append(_ message: LogStore.Message, to json: inout OTLPJSONWriter) {
        json.append("{")
        json.append(times: message.createdAt)
        json.append(",\"severityNumber\":")
        json.bytes.append(decimal: Self.severityNumber(message.level))
        json.append(",\"severityText\":")
        json.append(string: message.level.name)
        json.append(",\"body\":{\"stringValue\":")
        json.append(string: message.text)
        json.append("},\"attributes\":[")
        var first = true
        json.attribute("logstore.id", integer: message.id, first: &first)
        json.attribute("logstore.label", string: message.label, first: &first)
        json.attribute("logstore.session.id", string: message.sessionID.uuidString, first: &first)
        if let file = message.file, !file.isEmpty {
            json.attribute("code.filepath", string: file, first: &first)
        }
        if let function = message.function, !function.isEmpty {
            json.attribute("code.function", string: function, first: &first)
        }
        if let line = message.line, line > 0 {
            json.attribute("code.lineno", integer: line, first: &first)
        }
        if let threadID = message.threadID {
            json.attribute("thread.id", integer: threadID, first: &first)
        }
        if let threadName = message.threadName {
            json.attribute("thread.name", string: threadName, first: &first)
        }
        if !message.metadata.isEmpty {
            for key in OTLPJSONWriter.sortedKeys(message.metadata) where !Self.isMessageKey(key) {
                json.attribute(key: key, metadata: message.metadata[key] ?? .string(""), first: &first)
            }
        }
        json.append("]")
        if !message.metadata.isEmpty, let context = TraceContext(metadata: message.metadata) {
            json.append(traceContext: context)
        }
        json.append("}")
    }

    /// Whether metadata under `key` would repeat one of ``messageKeys``. Every one of them
    /// starts with `c`, `l` or `t`, which most keys do not: those are let through unhashed.
    private static func isMessageKey(_ key: String) -> Bool {
        switch key.utf8.first {
        case UInt8(ascii: "c"), UInt8(ascii: "l"), UInt8(ascii: "t"): messageKeys.contains(key)
        default: false
        }
    }

    /// OTLP's `SeverityNumber` for a level: the first number of its range (TRACE 1, DEBUG 5,
    /// INFO 9, WARN 13, ERROR 17), and the second of INFO and ERROR for notice and critical,
    /// which OTLP has no names for: swift-otel's mapping, so both read alike in a collector.
    static func severityNumber(_ level: LogStore.Level) -> Int {
        switch level {
        case .trace: 1
        case .debug: 5
        case .info: 9
        case .notice: 10
        case .warning: 13
        case .error: 17
        case .critical: 18
        }
    }
}
