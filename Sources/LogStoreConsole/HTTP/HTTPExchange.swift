/// What the server hands a ``HTTPHandler`` and what it sends back: the contract between the
/// server's socket loop (``HTTPServer``) and the console's routes.

/// The two methods the console answers; the server refuses every other with 405 itself.
enum HTTPMethod: String, Sendable {
    case get = "GET"
    case head = "HEAD"
}

/// A request as it arrived: the target split at `?`, still percent-encoded (each route decodes
/// what it reads, once), and the header fields in order.
struct HTTPRequest: Sendable {
    /// GET or HEAD.
    var method: HTTPMethod
    /// The target's path as sent, percent-encoding kept (`/api/messages`).
    var path: String
    /// The target's query as sent (after `?`, without it), percent-encoding kept; nil without `?`.
    var query: String?
    /// The header fields, names as sent, in order.
    var headers: [(name: String, value: String)]
    /// The peer's address and port (`127.0.0.1:50312`), for the access log.
    var peer: String

    /// The first value of a header field, its name matched without regard to case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

/// A response: status, header fields and a body, sent as is (the server adds `Content-Length`
/// or chunked framing, `Date` and `Connection`).
struct HTTPResponse: Sendable {
    /// The status code.
    var status: Int
    /// Header fields besides framing, in order.
    var headers: [(name: String, value: String)]
    /// The body; for a HEAD request the server sends its headers only.
    var body: HTTPBody

    init(status: Int, headers: [(name: String, value: String)] = [], body: HTTPBody = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A response body: bytes at hand, or written while it is sent.
enum HTTPBody: Sendable {
    /// The whole body.
    case bytes([UInt8])
    /// A body written by `write` as the client takes it: with `length` it is sent with
    /// `Content-Length` (and the connection closed if `write` sends a different count), without
    /// it in chunks. `write` returning ends the body; throwing ends the connection.
    case stream(length: Int64?, write: @Sendable (any HTTPBodyWriter) async throws -> Void)
}

/// Where a streamed body goes. Writes wait while the client is slow (memory stays bounded) and
/// throw once it is gone or the server stops, which is how a never-ending body (a live tail)
/// learns to end.
protocol HTTPBodyWriter: Sendable {
    /// Queues `bytes` for the client; returns once the queue is short enough to take more.
    func write(_ bytes: [UInt8]) async throws
}

/// Answers requests. Called on the concurrency pool, one call per request; the connection's
/// next request waits for the answer (no pipelining of answers).
protocol HTTPHandler: Sendable {
    /// The response to `request`.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

extension String {
    /// Equality of ASCII letters without regard to case (header names are ASCII).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count
            && zip(utf8, other.utf8).allSatisfy { a, b in
                a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
            }
    }
}
