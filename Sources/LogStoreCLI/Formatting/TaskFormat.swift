import Foundation
import LogStore

/// Network tasks for people: one line per task for `logstore tasks`, and the pieces of
/// `logstore task` (headers, bodies, the timing waterfall).
enum TaskFormat {
    // MARK: One row per task

    /// One column of `logstore tasks`: its header and how a task fills it. A new column is one
    /// more entry in ``columns``.
    struct Column: Sendable {
        var column: Table.Column
        var cell: @Sendable (NetworkTaskSummary, TextStyle) -> Table.Cell
    }

    /// The columns of `logstore tasks`, in order: `TIME DIR METHOD STATUS DURATION SIZE URL ID`. `DIR` is `→` for a call made, `←` for a request handled. A
    /// failure without a response shows `ERR` and its error after the URL, a pending task `...`
    /// and its progress, a task without a response body the size it sent (`↑43.3 KB`).
    static let columns: [Column] = [
        Column(column: Table.Column(header: "TIME")) { task, style in
            Table.Cell(style.time(task.createdAt), paint: style.dim)
        },
        Column(column: Table.Column(header: "DIR")) { task, _ in
            Table.Cell(task.direction == .inbound ? "←" : "→")
        },
        Column(column: Table.Column(header: "METHOD")) { task, _ in
            Table.Cell(Format.escaped(task.method ?? "-"))
        },
        Column(column: Table.Column(header: "STATUS")) { task, style in
            Table.Cell(statusText(task)) { style.status($0, code: task.statusCode, state: task.state) }
        },
        Column(column: Table.Column(header: "DURATION", alignment: .right)) { task, _ in
            Table.Cell(task.duration.map(milliseconds) ?? "-")
        },
        Column(column: Table.Column(header: "SIZE", alignment: .right)) { task, _ in
            Table.Cell(sizeText(task))
        },
        Column(column: Table.Column(header: "URL", isFlexible: true)) { task, style in
            var cell = Table.Cell(Format.escaped(task.url ?? "(no URL)"))
            if task.statusCode == nil, let error = task.error {
                cell.append("  ")
                cell.append(Format.escaped(error.description), paint: style.red)
            }
            return cell
        },
        Column(column: Table.Column(header: "ID")) { task, style in
            Table.Cell(task.id.uuidString, paint: style.dim)
        },
    ]

    /// The table of `tasks`: a header and one row per task, clipped to `width` when given.
    static func table(_ tasks: [NetworkTaskSummary], style: TextStyle, width: Int?) -> [String] {
        var table = Table(columns: columns.map(\.column))
        table.rows = tasks.map { task in columns.map { $0.cell(task, style) } }
        return table.lines(width: width, headerPaint: style.bold)
    }

    /// `200`, `...` (pending) or `ERR` (failed without a response).
    static func statusText(_ task: NetworkTaskSummary) -> String {
        switch (task.statusCode, task.state) {
        case (let code?, _): String(code)
        case (nil, .pending): "..."
        case (nil, _): "ERR"
        }
    }

    /// What came back; for a request that got no body back (an upload), what was sent, marked
    /// ↑; a pending task's progress.
    static func sizeText(_ task: NetworkTaskSummary) -> String {
        if task.state == .pending, let fraction = task.progress?.fractionCompleted {
            return "\(Int((fraction * 100).rounded(.down)))%"
        }
        return task.responseBodySize > 0 ? Format.bytes(task.responseBodySize)
            : task.requestBodySize > 0 ? "↑" + Format.bytes(task.requestBodySize) : "-"
    }

    /// `0.4 ms`, `18.2 ms`, `1,204 ms`.
    static func milliseconds(_ seconds: TimeInterval) -> String {
        let value = seconds * 1000
        return value < 100 ? "\(Format.decimal(value, places: 1)) ms" : "\(Format.count(Int(value.rounded()))) ms"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    // MARK: Heads

    /// `Name: value` lines, sorted by name regardless of case, escaped for the terminal.
    static func headers(_ headers: [String: String], style: TextStyle) -> [String] {
        if headers.isEmpty { return [style.dim("(none)")] }
        return headers.sorted { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }.map { name, value in
            style.cyan(Format.escaped(name)) + ": " + Format.escaped(value)
        }
    }

    /// `200 OK`.
    static func status(_ code: Int) -> String {
        let reason = HTTPStatus.reason(code)
        return reason.isEmpty ? String(code) : "\(code) \(reason)"
    }

    // MARK: Bodies

    /// How to show a body: its first line says what it is, the rest is its content.
    enum Body {
        /// No body was sent or received.
        case none
        /// A body larger than the store's limit: only its size was kept.
        case overLimit(Int64)
        /// A body with a size but no stored bytes.
        case missing(Int64)
        /// The stored bytes.
        case data(Data, contentType: String?)
    }

    /// The lines of a body: pretty-printed JSON when it is JSON, text when it is UTF-8, else
    /// its size. At most `lineLimit` lines of content (`nil`: all).
    static func body(_ body: Body, lineLimit: Int?, style: TextStyle) -> (title: String, lines: [String]) {
        switch body {
        case .none:
            return ("none", [])
        case .overLimit(let size):
            return ("\(Format.bytes(size)) (not stored: over the size limit)", [])
        case .missing(let size):
            return ("\(Format.bytes(size)) (not stored)", [])
        case .data(let data, let contentType):
            var title = Format.bytes(Int64(data.count))
            if let contentType { title += ", " + Format.escaped(contentType) }
            if isJSON(data, contentType: contentType) {
                let (lines, truncated) = JSONPretty.lines(data, limit: lineLimit)
                return (title + (contentType == nil ? ", JSON" : ""), lines + (truncated ? [style.dim(truncation(data, lineLimit))] : []))
            }
            if let text = text(data) {
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    Format.escaped(line.hasSuffix("\r") ? String(line.dropLast()) : String(line))
                }
                if lines.last == "" { lines.removeLast() }
                if contentType == nil { title += ", text" }
                if let lineLimit, lines.count > lineLimit {
                    return (title, Array(lines.prefix(lineLimit)) + [style.dim(truncation(data, lineLimit))])
                }
                return (title, lines)
            }
            return ("\(Format.count(data.count)) bytes binary" + (contentType.map { " (\(Format.escaped($0)))" } ?? ""), [])
        }
    }

    private static func truncation(_ data: Data, _ limit: Int?) -> String {
        "... (first \(limit ?? 0) lines of \(Format.bytes(Int64(data.count))); --full prints all)"
    }

    /// JSON by its content type (`application/json`, `+json`), or with none, by its content.
    static func isJSON(_ data: Data, contentType: String?) -> Bool {
        if let contentType {
            let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let declared = type == "application/json" || type == "text/json" || type.hasSuffix("+json")
            let untyped = type == "text/plain" || type == "application/octet-stream"
            guard declared || untyped else { return false }
        } else {
            guard let first = data.first(where: { !" \t\r\n".utf8.contains($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
            else { return false }
        }
        return (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
    }

    /// The body as text when it is valid UTF-8 without NUL bytes, else `nil`.
    static func text(_ data: Data) -> String? {
        guard !data.contains(0), let text = String(data: data, encoding: .utf8) else { return nil }
        return text
    }

    // MARK: Timings

    /// A transaction's phases as bars on a common time axis, in milliseconds.
    ///
    /// ```
    /// DNS       ██                                       1.8 ms
    /// Connect     ███                                    3.1 ms
    /// ```
    static func waterfall(
        _ transactions: [NetworkTransactionMetrics], taskStart: Date, taskEnd: Date?, style: TextStyle
    ) -> [String] {
        let dates = transactions.flatMap { transaction in
            [transaction.fetchStart, transaction.responseEnd, transaction.requestEnd, transaction.connectStart].compactMap { $0 }
        }
        let origin = min(dates.min() ?? taskStart, taskStart)
        let end = max(dates.max() ?? origin, taskEnd ?? origin)
        let total = max(end.timeIntervalSince(origin), 0.000_001)
        let width = 40
        var lines: [String] = []
        for (index, transaction) in transactions.enumerated() {
            lines.append(style.bold("Transaction \(index + 1) of \(transactions.count)") + ": " + describe(transaction))
            if let request = transaction.request {
                var head = Format.escaped("\(request.method) \(request.url?.absoluteString ?? "(no URL)")")
                if let code = transaction.response?.statusCode { head = status(code) + "  " + head }
                lines.append("  " + head)
            }
            for phase in transaction.phases(taskEnd: taskEnd) {
                let name = phase.kind.name
                guard let finish = phase.end else {
                    lines.append("  " + pad(name, 9) + style.red("started, never finished"))
                    continue
                }
                let start = phase.start
                let from = Int((start.timeIntervalSince(origin) / total * Double(width)).rounded(.down))
                let to = max(from + 1, Int((finish.timeIntervalSince(origin) / total * Double(width)).rounded(.up)))
                let clampedFrom = min(max(0, from), width - 1)
                let clampedTo = min(max(clampedFrom + 1, to), width)
                let bar = String(repeating: " ", count: clampedFrom) + String(repeating: "█", count: clampedTo - clampedFrom)
                    + String(repeating: " ", count: width - clampedTo)
                var label = padLeft(milliseconds(finish.timeIntervalSince(start)), 11)
                if phase.endsWithoutResponse { label += "  no response" }
                lines.append("  " + pad(name, 9) + style.cyan(bar) + label)
            }
            if let interval = transaction.interval {
                lines.append("  " + pad("Total", 9) + String(repeating: " ", count: width) + padLeft(milliseconds(interval.duration), 11))
            }
        }
        return lines
    }

    /// `network load, h2, 10.0.0.2:51234 → 203.0.113.7:443, TLS 1.3 (TLS_AES_128_GCM_SHA256), reused connection`.
    static func describe(_ transaction: NetworkTransactionMetrics) -> String {
        var parts: [String] = []
        switch transaction.fetchType {
        case .networkLoad: parts.append("network load")
        case .localCache: parts.append("local cache")
        case .serverPush: parts.append("server push")
        case .unknown: break
        }
        if let networkProtocol = transaction.networkProtocol { parts.append(networkProtocol) }
        if let remote = transaction.remoteAddress {
            let local = transaction.localAddress.map { endpoint($0, transaction.localPort) + " → " } ?? ""
            parts.append(local + endpoint(remote, transaction.remotePort))
        }
        if let tls = transaction.tlsVersion {
            parts.append(tls + (transaction.cipherSuite.map { " (\($0))" } ?? ""))
        }
        if transaction.isReusedConnection { parts.append("reused connection") }
        if transaction.isProxyConnection { parts.append("through a proxy") }
        let bytes = [
            ("sent", transaction.requestHeaderBytes + transaction.requestBodyBytes),
            ("received", transaction.responseHeaderBytes + transaction.responseBodyBytes),
        ].filter { $0.1 > 0 }.map { "\(Format.bytes($0.1)) \($0.0)" }
        parts += bytes
        return Format.escaped(parts.joined(separator: ", "))
    }

    private static func endpoint(_ address: String, _ port: Int?) -> String {
        let host = address.contains(":") ? "[\(address)]" : address
        return port.map { "\(host):\($0)" } ?? host
    }
}

/// Re-indents JSON for reading, keeping everything else as it was: key order, number spelling,
/// escapes. Expects valid JSON (check first); two spaces per level, `"key": value`.
enum JSONPretty {
    /// The lines, and whether `limit` cut them short.
    static func lines(_ data: Data, limit: Int?) -> (lines: [String], truncated: Bool) {
        var lines: [String] = []
        var current: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        let bytes = [UInt8](data)
        var index = 0

        func newLine() -> Bool {
            lines.append(Format.escaped(String(decoding: current, as: UTF8.self)))
            current = [UInt8](repeating: UInt8(ascii: " "), count: depth * 2)
            return limit.map { lines.count >= $0 } ?? false
        }

        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                current.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "\""):
                inString = true
                current.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                var next = index
                while next < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[next]) { next += 1 }
                if next < bytes.count, bytes[next] == close {
                    current += [byte, close]
                    index = next + 1
                    continue
                }
                current.append(byte)
                depth += 1
                if newLine() { return (lines, true) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth = max(0, depth - 1)
                if newLine() { return (lines, true) }
                current = [UInt8](repeating: UInt8(ascii: " "), count: depth * 2)
                current.append(byte)
            case UInt8(ascii: ","):
                current.append(byte)
                if newLine() { return (lines, true) }
            case UInt8(ascii: ":"):
                current += [byte, UInt8(ascii: " ")]
            default:
                current.append(byte)
            }
        }
        if current.contains(where: { $0 != UInt8(ascii: " ") }) {
            lines.append(Format.escaped(String(decoding: current, as: UTF8.self)))
        }
        return (lines, false)
    }
}
