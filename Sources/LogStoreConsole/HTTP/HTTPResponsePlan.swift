/// How the server sends a handler's response to a request: the status it writes, the body's
/// framing, whether the body goes out at all, and whether the connection stays open after.
struct HTTPResponsePlan {
    /// The status written: the handler's, or 500 for one that is not a final status (a 1xx
    /// would tell the client to wait for another response).
    let status: Int
    /// The framing announced in the head.
    let framing: HTTPBodyFraming
    /// Whether body bytes follow the head (not for HEAD, 204, 304).
    let sendsBody: Bool
    /// Whether the connection takes another request after this response.
    let keepAlive: Bool
    /// The status line and header fields.
    let head: [UInt8]

    /// The plan for answering `request` with `response`.
    init(request: HTTPRequestHead, response: HTTPResponse, date: String = HTTPDate.now()) {
        status = (200...999).contains(response.status) ? response.status : 500
        let hasNoBody = status == 204 || status == 304
        switch response.body {
        case _ where hasNoBody:
            framing = .none
        case .bytes(let bytes):
            framing = .length(Int64(bytes.count))
        case .stream(let length?, _) where length >= 0:
            framing = .length(length)
        case .stream:
            framing = request.version == .http11 ? .chunked : .closeDelimited
        }
        sendsBody = !hasNoBody && request.method != .head
        // A handler's `Connection: close` is honoured (and the field replaced by the server's).
        let handlerCloses = response.headers.contains { field in
            field.name.caseInsensitiveEquals("Connection")
                && field.value.split(separator: ",").contains { option in
                    String(option.filter { $0 != " " && $0 != "\t" }).caseInsensitiveEquals("close")
                }
        }
        keepAlive = request.keepAlive && !handlerCloses && framing != .closeDelimited
        head = HTTPResponseHead.bytes(status: status, headers: response.headers, framing: framing, keepAlive: keepAlive, date: date)
    }
}
