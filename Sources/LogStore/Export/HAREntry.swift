import Foundation

/// One network task as a HAR 1.2 `entries` element: request (with `postData`), response (with
/// `content`), `timings` from the stored metrics, and the custom fields (`_`-prefixed) HAR
/// leaves room for. Everything comes from what the store kept, so what it redacted stays
/// redacted.
struct HAREntry {
    let summary: NetworkTaskSummary
    let details: NetworkTaskDetails?

    /// The last transaction: the one that brought the response (earlier ones are redirects or
    /// retries).
    private var transaction: NetworkTransactionMetrics? { details?.transactions.last }

    /// Writes the entry into `json`, reading its bodies (one at a time) from `source`.
    /// - Returns: how many bodies it embedded.
    func write(into json: inout HARJSONWriter, source: ExportSource) throws -> Int {
        let requestBody = try Body.read(
            key: details?.requestBodyKey, size: summary.requestBodySize,
            isOverLimit: details?.isRequestBodyOverLimit ?? false, isRemoved: details?.isRequestBodyRemoved ?? false,
            side: "request", source: source)
        let responseBody = try Body.read(
            key: details?.responseBodyKey, size: summary.responseBodySize,
            isOverLimit: details?.isResponseBodyOverLimit ?? false, isRemoved: details?.isResponseBodyRemoved ?? false,
            side: "response", source: source)
        let timings = HARTimings(transaction: transaction, duration: summary.duration)

        json.beginObject(onNewLine: true)
        json.field("pageref", summary.sessionID.uuidString)
        json.field("startedDateTime", date: summary.createdAt)
        json.field("time", milliseconds: timings.total)
        writeRequest(into: &json, body: requestBody)
        writeResponse(into: &json, body: responseBody)
        json.beginObject("cache")
        json.endObject()
        writeTimings(timings, into: &json)
        if let address = transaction?.remoteAddress { json.field("serverIPAddress", address) }
        if let port = transaction?.localPort { json.field("connection", String(port)) }
        if summary.state == .pending { json.field("comment", "The task had not completed when it was exported.") }
        json.field("_taskID", summary.id.uuidString)
        json.field("_label", summary.label)
        json.field("_taskType", String(describing: summary.taskType))
        json.field("_state", String(describing: summary.state))
        // Only on inbound entries: HAR describes what a client sent and received, which an
        // outbound task is; an inbound one is a request this process answered, so it says so,
        // and exports of outbound tasks stay as they were.
        if summary.direction == .inbound { json.field("_direction", summary.direction.rawValue) }
        if let description = details?.taskDescription { json.field("_taskDescription", description) }
        if let decodingError = details?.decodingError { json.field("_decodingError", decodingError) }
        json.endObject()
        return [requestBody, responseBody].filter(\.isEmbedded).count
    }

    // MARK: Request

    private func writeRequest(into json: inout HARJSONWriter, body: Body) {
        let request = details?.request
        let url = request?.url?.absoluteString ?? summary.url ?? ""
        let headers = request?.headers ?? [:]
        json.beginObject("request")
        json.field("method", request?.method ?? summary.method ?? "GET")
        json.field("url", url)
        json.field("httpVersion", HARFields.httpVersion(transaction?.networkProtocol))
        writeCookies(HARFields.requestCookies(headers.httpHeaderValue("Cookie")), into: &json)
        writePairs("headers", HARFields.headers(headers), into: &json)
        writePairs("queryString", HARFields.queryString(of: url), into: &json)
        if body.isPresent {
            writePostData(body, contentType: headers.httpHeaderValue("Content-Type"), into: &json)
        }
        json.field("headersSize", -1)
        json.field("bodySize", summary.requestBodySize)
        json.endObject()
    }

    /// HAR 1.2's `postData` holds `text` or `params`, never both ("mutually exclusive"); `text`
    /// is always there, because HAR readers take it for granted. A form body's fields, decoded,
    /// go in the custom `_params` instead (same shape as `params`). `postData` has no
    /// `encoding`: a body that is not UTF-8 has an empty `text`, a `comment` saying why, and its
    /// bytes in Base64 in the custom `_textBase64` (which some readers, haralyzer among them,
    /// take for the text).
    private func writePostData(_ body: Body, contentType: String?, into json: inout HARJSONWriter) {
        json.beginObject("postData")
        json.field("mimeType", contentType ?? "x-unknown")
        switch body {
        case .data(let data):
            if let text = String(validating: data, as: UTF8.self) {
                json.field("text", text)
                if contentType.flatMap(MediaType.essence(of:)) == MediaType.form {
                    writePairs("_params", HARFields.formParameters(text), into: &json)
                }
            } else {
                json.field("text", "")
                json.field("comment", "The request body (\(data.count) bytes) is not UTF-8 text: HAR 1.2 postData cannot hold it, so its bytes are in _textBase64.")
                json.field("_textBase64", plain: data.base64EncodedData())
            }
        case .missing(let reason):
            json.field("text", "")
            json.field("comment", reason)
        case .none:
            json.field("text", "")
        }
        json.endObject()
    }

    // MARK: Response

    private func writeResponse(into json: inout HARJSONWriter, body: Body) {
        let response = details?.response
        let headers = response?.headers ?? [:]
        let status = response?.statusCode ?? summary.statusCode ?? 0
        let hasResponse = response != nil || summary.statusCode != nil
        json.beginObject("response")
        json.field("status", status)
        json.field("statusText", HARFields.statusText(status))
        json.field("httpVersion", HARFields.httpVersion(transaction?.networkProtocol))
        writeCookies(HARFields.responseCookies(headers.httpHeaderValue("Set-Cookie")), into: &json)
        writePairs("headers", HARFields.headers(headers), into: &json)
        writeContent(body, mimeType: headers.httpHeaderValue("Content-Type") ?? summary.contentType, into: &json)
        json.field("redirectURL", headers.httpHeaderValue("Location") ?? "")
        json.field("headersSize", -1)
        let wireBytes = transaction?.responseBodyBytes ?? 0
        json.field("bodySize", hasResponse ? (wireBytes > 0 ? wireBytes : summary.responseBodySize) : -1)
        if let error = summary.error {
            json.beginObject("_error")
            json.field("domain", error.domain)
            json.field("code", error.code)
            json.field("description", error.description)
            json.endObject()
        }
        json.endObject()
    }

    /// `content.text` is always there (empty when the body is not), because readers such as
    /// haralyzer take it for granted; a `comment` says why it is empty.
    private func writeContent(_ body: Body, mimeType: String?, into json: inout HARJSONWriter) {
        json.beginObject("content")
        switch body {
        case .data(let data):
            json.field("size", data.count)
            json.field("mimeType", mimeType ?? "x-unknown")
            let isText = data.withUnsafeBytes { raw in
                guard String(validating: raw, as: UTF8.self) != nil else { return false }
                json.field("text", utf8: raw)
                return true
            }
            if !isText {
                json.field("text", plain: data.base64EncodedData())
                json.field("encoding", "base64")
            }
        case .missing(let reason):
            json.field("size", summary.responseBodySize)
            json.field("mimeType", mimeType ?? "x-unknown")
            json.field("text", "")
            json.field("comment", reason)
        case .none:
            json.field("size", 0)
            json.field("mimeType", mimeType ?? "x-unknown")
            json.field("text", "")
        }
        json.endObject()
    }

    // MARK: Lists

    private func writePairs(_ name: String, _ pairs: [HARFields.Pair], into json: inout HARJSONWriter) {
        json.beginArray(name)
        for pair in pairs {
            json.beginObject()
            json.field("name", pair.name)
            json.field("value", pair.value)
            json.endObject()
        }
        json.endArray()
    }

    private func writeCookies(_ cookies: [HARFields.Cookie], into json: inout HARJSONWriter) {
        json.beginArray("cookies")
        for cookie in cookies {
            json.beginObject()
            json.field("name", cookie.name)
            json.field("value", cookie.value)
            if let path = cookie.path { json.field("path", path) }
            if let domain = cookie.domain { json.field("domain", domain) }
            if let expires = cookie.expires { json.field("expires", date: expires) }
            if cookie.httpOnly { json.field("httpOnly", true) }
            if cookie.secure { json.field("secure", true) }
            json.endObject()
        }
        json.endArray()
    }

    private func writeTimings(_ timings: HARTimings, into json: inout HARJSONWriter) {
        json.beginObject("timings")
        json.field("blocked", milliseconds: timings.blocked)
        json.field("dns", milliseconds: timings.dns)
        json.field("connect", milliseconds: timings.connect)
        json.field("ssl", milliseconds: timings.ssl)
        json.field("send", milliseconds: timings.send)
        json.field("wait", milliseconds: timings.wait)
        json.field("receive", milliseconds: timings.receive)
        json.endObject()
    }
}

extension HAREntry {
    /// A body as the export finds it.
    enum Body {
        /// There was none.
        case none
        /// Its bytes.
        case data(Data)
        /// There was one, but it is not stored: why, for a `comment`.
        case missing(String)

        var isPresent: Bool {
            if case .none = self { return false }
            return true
        }

        var isEmbedded: Bool {
            if case .data = self { return true }
            return false
        }

        /// One body, read only now: an export holds one task's bodies at a time.
        static func read(
            key: String?, size: Int64, isOverLimit: Bool, isRemoved: Bool, side: String, source: ExportSource
        ) throws -> Body {
            let what = "The \(side) body (\(size) bytes)"
            if let key {
                if let data = try source.body(forKey: key) { return .data(data) }
                return .missing("\(what) is no longer stored.")
            }
            if isRemoved { return .missing("\(what) was removed by the store's sweep.") }
            if isOverLimit { return .missing("\(what) was larger than the store's body size limit and was not stored.") }
            if size > 0 { return .missing("\(what) was not stored.") }
            return .none
        }
    }
}
