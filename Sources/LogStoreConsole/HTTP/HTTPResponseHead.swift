/// How a response's body is delimited on the wire.
enum HTTPBodyFraming: Equatable, Sendable {
    /// No body at all (204, 304): neither `Content-Length` nor chunks.
    case none
    /// `Content-Length`.
    case length(Int64)
    /// `Transfer-Encoding: chunked` (HTTP/1.1 only).
    case chunked
    /// The body ends when the connection does (an HTTP/1.0 client, a stream of unknown length).
    case closeDelimited
}

/// A response's status line and header fields, as bytes.
enum HTTPResponseHead {
    /// The fields the server writes itself: a handler's own would contradict the framing.
    static let serverFields = ["Content-Length", "Transfer-Encoding", "Connection", "Date"]

    /// `HTTP/1.1 status reason`, the handler's fields that are safe to send, then framing,
    /// `Date` and `Connection`, and the blank line.
    static func bytes(
        status: Int, headers: [(name: String, value: String)], framing: HTTPBodyFraming, keepAlive: Bool, date: String
    ) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        for field in headers where isSendable(field) && !serverFields.contains(where: field.name.caseInsensitiveEquals) {
            text += "\(field.name): \(field.value)\r\n"
        }
        switch framing {
        case .none, .closeDelimited: break
        case .length(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        }
        text += "Date: \(date)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        return Array(text.utf8)
    }

    /// Whether a handler's field can be written as is: a token name, and a value without CR, LF
    /// or another control byte. A value built from logged text with a newline in it would
    /// otherwise end the head early and let that text write the rest of the response; such a
    /// field is left out.
    static func isSendable(_ field: (name: String, value: String)) -> Bool {
        !field.name.isEmpty && field.name.utf8.allSatisfy(\.isHTTPTokenCharacter)
            && field.value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// The reason phrase of `status` (RFC 9110 §15); empty for a code without one, which the
    /// status line allows.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 507: return "Insufficient Storage"
        default: return ""
        }
    }

    /// A complete response the server sends itself (an error): plain text, `Connection: close`,
    /// no body for a HEAD request, `Allow` on a 405.
    static func serverResponse(status: Int, reason: String, isHead: Bool) -> [UInt8] {
        let body = Array("\(reasonPhrase(status)): \(reason)\n".utf8)
        var headers: [(name: String, value: String)] = [("Content-Type", "text/plain; charset=utf-8")]
        if status == 405 { headers.append(("Allow", "GET, HEAD")) }
        if status == 503 { headers.append(("Retry-After", "1")) }
        let head = bytes(status: status, headers: headers, framing: .length(Int64(body.count)), keepAlive: false, date: HTTPDate.now())
        return isHead ? head : head + body
    }
}
