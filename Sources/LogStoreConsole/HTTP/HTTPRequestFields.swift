/// The checks on a request's header fields that need them all: `Host`, a body's framing, and
/// `Connection`.
enum HTTPRequestFields {
    /// Whether `fields` make a request the server answers, and if so whether the client keeps
    /// the connection.
    ///
    /// HTTP/1.1 needs exactly one `Host` (RFC 9112 §3.2). A body cannot be read (GET and HEAD
    /// only): `Content-Length` above 0 or any `Transfer-Encoding` is answered 413, and framing a
    /// reader could take two ways (`Content-Length` values that differ or are not numbers, or
    /// both headers) 400 — the connection is closed either way, so the body is never read as a
    /// request.
    static func check(_ fields: [(name: String, value: String)], version: HTTPVersion) -> Result<Bool, HTTPRequestRejection> {
        var hosts = 0
        var lengths: [Substring] = []
        var hasTransferEncoding = false
        var close = false
        var keepAlive = false
        for field in fields {
            if field.name.caseInsensitiveEquals("Host") {
                hosts += 1
            } else if field.name.caseInsensitiveEquals("Content-Length") {
                lengths += field.value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
            } else if field.name.caseInsensitiveEquals("Transfer-Encoding") {
                hasTransferEncoding = true
            } else if field.name.caseInsensitiveEquals("Connection") {
                for option in field.value.split(separator: ",").map(trimmed) {
                    if String(option).caseInsensitiveEquals("close") { close = true }
                    if String(option).caseInsensitiveEquals("keep-alive") { keepAlive = true }
                }
            }
        }
        if hosts > 1 { return .failure(.badRequest("more than one Host field")) }
        if hosts == 0 && version == .http11 { return .failure(.badRequest("an HTTP/1.1 request without Host")) }
        if !lengths.isEmpty {
            guard lengths.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } })
            else { return .failure(.badRequest("a Content-Length that is not a number")) }
            let values = Set(lengths.map { $0.drop { $0 == "0" } })
            guard values.count == 1 else { return .failure(.badRequest("Content-Length fields that differ")) }
            if hasTransferEncoding { return .failure(.badRequest("both Content-Length and Transfer-Encoding")) }
            if values.first?.isEmpty == false {
                return .failure(HTTPRequestRejection(status: 413, reason: "requests with a body are not accepted"))
            }
        }
        if hasTransferEncoding {
            return .failure(HTTPRequestRejection(status: 413, reason: "requests with a body are not accepted"))
        }
        return .success(version == .http11 ? !close : keepAlive && !close)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
