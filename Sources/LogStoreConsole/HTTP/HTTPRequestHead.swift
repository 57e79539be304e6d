/// The HTTP versions the server reads; it answers both as HTTP/1.1.
enum HTTPVersion: String, Sendable, Equatable {
    case http10 = "HTTP/1.0"
    case http11 = "HTTP/1.1"
}

/// A request head the parser accepted: the request the handler gets, and what the connection
/// needs to answer it (version, whether the client keeps the connection).
struct HTTPRequestHead: Sendable {
    /// GET or HEAD.
    var method: HTTPMethod
    /// The target's path, as sent.
    var path: String
    /// The target's query (after `?`), as sent; nil without `?`.
    var query: String?
    /// The header fields, in order, values without surrounding spaces.
    var headers: [(name: String, value: String)]
    /// The request's version.
    var version: HTTPVersion
    /// Whether the client keeps the connection after the response: HTTP/1.1 unless it sent
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    var keepAlive: Bool

    /// The request as the handler sees it, from `peer` (`127.0.0.1:50312`).
    func request(peer: String) -> HTTPRequest {
        HTTPRequest(method: method, path: path, query: query, headers: headers, peer: peer)
    }

    /// The head written out again (request line, fields as `name: value`, blank line): the
    /// parser reads it back to an equal head, which the fuzz target checks.
    var serialized: [UInt8] {
        var text = "\(method.rawValue) \(path)"
        if let query { text += "?\(query)" }
        text += " \(version.rawValue)\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}

extension HTTPRequestHead: Equatable {
    static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
        a.method == b.method && a.path == b.path && a.query == b.query && a.version == b.version
            && a.keepAlive == b.keepAlive && a.headers.count == b.headers.count
            && zip(a.headers, b.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A request the server answers itself with an error, and then closes the connection.
struct HTTPRequestRejection: Error, Sendable, Equatable {
    /// 400, 405, 413, 414, 431 or 505.
    var status: Int
    /// What was wrong, for the response's body (plain text, no client bytes echoed).
    var reason: String
    /// Whether the request was a HEAD (the answer then has no body).
    var isHead = false

    /// 400: the request breaks HTTP/1.1's syntax.
    static func badRequest(_ reason: String) -> HTTPRequestRejection {
        HTTPRequestRejection(status: 400, reason: reason)
    }
}
