/// Why ``HTTPBodyWriter/write(_:)`` threw: the body cannot go on, and the handler's stream should
/// end (a live tail's loop ends on the first).
enum HTTPBodyWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The client closed the connection, or it broke.
    case peerClosed
    /// The client took nothing for longer than ``HTTPLimits/writeTimeout``.
    case timedOut
    /// The server is stopping.
    case serverStopped
    /// The handler's task was cancelled.
    case cancelled
    /// The body is longer (a write would pass it) or shorter (when the stream returned) than
    /// the length the stream declared: the connection is closed rather than sending a body its
    /// `Content-Length` does not describe.
    case lengthMismatch(declared: Int64, written: Int64)
    /// The body already ended (a write after the stream's closure returned).
    case bodyEnded

    var description: String {
        switch self {
        case .peerClosed: return "the client closed the connection"
        case .timedOut: return "the client stopped reading (write timeout)"
        case .serverStopped: return "the server is stopping"
        case .cancelled: return "the request's task was cancelled"
        case .lengthMismatch(let declared, let written):
            return "the body has \(written) bytes, not its declared \(declared)"
        case .bodyEnded: return "the body already ended"
        }
    }
}
