import Foundation

/// One network task as the page holds it: an object with short keys (tasks are few next to
/// messages, and carry their details):
///
/// `id`, `t` (ms), `m` method, `u` URL, `h` host, `sc` status, `st` state (0 pending, 1 success,
/// 2 failure), `d` duration (s), `q`/`r` request/response body sizes, `ct` content type, `e` error,
/// `ty` task type, `dr` direction (`outbound` or `inbound`), `lb` label index, `s` session index, and `x`, the details: `qh`/`rh` headers as
/// pairs, `qb`/`rb` bodies (``HTMLBody``), `tx` transactions, `ds` description, `de` decoding error,
/// `md` metadata, `bad` the stored parts that did not decode.
enum HTMLTaskRow {
    /// Writes the task; returns how many bodies it embedded.
    static func write(
        _ task: NetworkTaskSummary, source: ExportSource, tables: inout HTMLTables, to json: inout ScriptJSON
    ) throws -> Int {
        json.raw("{")
        json.key("id")
        json.string(task.id.uuidString.lowercased())
        json.raw(",")
        json.key("t")
        json.number(Milliseconds.since1970(task.createdAt) ?? 0)
        json.raw(",")
        json.key("m")
        json.string(task.method)
        json.raw(",")
        json.key("u")
        json.string(task.url)
        json.raw(",")
        json.key("h")
        json.string(task.host)
        json.raw(",")
        json.key("sc")
        if let status = task.statusCode { json.number(status) } else { json.null() }
        json.raw(",")
        json.key("st")
        json.number(Int(task.state.rawValue))
        json.raw(",")
        json.key("d")
        if let duration = task.duration { json.number(duration) } else { json.null() }
        json.raw(",")
        json.key("q")
        json.number(task.requestBodySize)
        json.raw(",")
        json.key("r")
        json.number(task.responseBodySize)
        json.raw(",")
        json.key("ct")
        json.string(task.contentType)
        json.raw(",")
        json.key("e")
        json.string(task.error.map { "\($0.description) (\($0.domain) \($0.code))" })
        json.raw(",")
        json.key("ty")
        json.string(String(describing: task.taskType))
        json.raw(",")
        json.key("dr")
        json.string(task.direction.rawValue)
        json.raw(",")
        json.key("lb")
        json.number(tables.index(ofLabel: task.label))
        json.raw(",")
        json.key("s")
        json.number(tables.index(ofSession: task.sessionID))
        var bodies = 0
        if let details = try source.details(of: task.id) {
            json.raw(",")
            json.key("x")
            bodies = try write(details, source: source, to: &json)
        }
        json.raw("}")
        return bodies
    }

    private static func write(_ details: NetworkTaskDetails, source: ExportSource, to json: inout ScriptJSON) throws -> Int {
        var bodies = 0
        let taskEnd = details.summary.duration.map { details.summary.createdAt.addingTimeInterval($0) }
        json.raw("{")
        json.key("qh")
        json.pairs(details.request?.headers ?? [:])
        json.raw(",")
        json.key("rh")
        json.pairs(details.response?.headers ?? [:])
        json.raw(",")
        json.key("qb")
        if try HTMLBody.write(
            key: details.requestBodyKey, size: details.summary.requestBodySize,
            isOverLimit: details.isRequestBodyOverLimit, isRemoved: details.isRequestBodyRemoved,
            source: source, to: &json) { bodies += 1 }
        json.raw(",")
        json.key("rb")
        if try HTMLBody.write(
            key: details.responseBodyKey, size: details.summary.responseBodySize,
            isOverLimit: details.isResponseBodyOverLimit, isRemoved: details.isResponseBodyRemoved,
            source: source, to: &json) { bodies += 1 }
        json.raw(",")
        json.key("tx")
        json.raw("[")
        for (index, transaction) in details.transactions.enumerated() {
            if index > 0 { json.raw(",") }
            write(transaction, taskEnd: taskEnd, to: &json)
        }
        json.raw("],")
        json.key("ds")
        json.string(details.taskDescription)
        json.raw(",")
        json.key("de")
        json.string(details.decodingError)
        json.raw(",")
        json.key("md")
        json.pairs(details.metadata)
        json.raw(",")
        json.key("bad")
        json.pairs(details.undecodableJSON)
        json.raw("}")
        return bodies
    }

    /// `{"ft", "u", "m", "sc", "ph": [[phase, start ms, end ms or null, note?], …], "pr", "ra", "la",
    /// "tls", "cs", "reused", "proxy", "b": [request header, request body, response header, response body bytes]}`.
    ///
    /// The phases are ``NetworkTransactionMetrics/phases(taskEnd:)``'s, the ones `logstore task`
    /// draws (a null end: started, never finished; the note `"no response"`: waiting that ended
    /// with the task), then `"Total"`, the transaction's ``NetworkTransactionMetrics/interval``.
    private static func write(_ transaction: NetworkTransactionMetrics, taskEnd: Date?, to json: inout ScriptJSON) {
        json.raw("{")
        json.key("ft")
        json.string(fetchType(transaction.fetchType))
        json.raw(",")
        json.key("u")
        json.string(transaction.request?.url?.absoluteString ?? transaction.response?.url?.absoluteString)
        json.raw(",")
        json.key("m")
        json.string(transaction.request?.method)
        json.raw(",")
        json.key("sc")
        if let status = transaction.response?.statusCode { json.number(status) } else { json.null() }
        json.raw(",")
        json.key("ph")
        json.raw("[")
        var phases = transaction.phases(taskEnd: taskEnd).map { ($0.kind.name, $0.start, $0.end, $0.endsWithoutResponse) }
        if let total = transaction.interval { phases.append(("Total", total.start, total.end, false)) }
        var first = true
        for (name, start, end, withoutResponse) in phases {
            guard let start = preciseMilliseconds(start) else { continue }
            if !first { json.raw(",") }
            first = false
            json.raw("[")
            json.string(name)
            json.raw(",")
            json.number(start)
            json.raw(",")
            if let end = preciseMilliseconds(end) { json.number(end) } else { json.null() }
            if withoutResponse { json.raw(#","no response""#) }
            json.raw("]")
        }
        json.raw("],")
        json.key("pr")
        json.string(transaction.networkProtocol)
        json.raw(",")
        json.key("ra")
        json.string(address(transaction.remoteAddress, transaction.remotePort))
        json.raw(",")
        json.key("la")
        json.string(address(transaction.localAddress, transaction.localPort))
        json.raw(",")
        json.key("tls")
        json.string(transaction.tlsVersion)
        json.raw(",")
        json.key("cs")
        json.string(transaction.cipherSuite)
        json.raw(",")
        json.key("reused")
        json.bool(transaction.isReusedConnection)
        json.raw(",")
        json.key("proxy")
        json.bool(transaction.isProxyConnection)
        json.raw(",")
        json.key("b")
        json.raw("[")
        json.number(transaction.requestHeaderBytes)
        json.raw(",")
        json.number(transaction.requestBodyBytes)
        json.raw(",")
        json.number(transaction.responseHeaderBytes)
        json.raw(",")
        json.number(transaction.responseBodyBytes)
        json.raw("]}")
    }

    /// A waterfall phase's end, in milliseconds since 1970 with its fraction (phases are often
    /// shorter than a millisecond); `null` in the page when it is not finite.
    private static func preciseMilliseconds(_ date: Date?) -> Double? {
        date.map { ($0.timeIntervalSince1970 * 1_000_000).rounded() / 1000 }
    }

    private static func fetchType(_ type: NetworkTransactionMetrics.FetchType) -> String {
        switch type {
        case .unknown: "unknown"
        case .networkLoad: "network"
        case .serverPush: "server push"
        case .localCache: "cache"
        }
    }

    private static func address(_ host: String?, _ port: Int?) -> String? {
        guard let host else { return nil }
        guard let port else { return host }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
