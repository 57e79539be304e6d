/// A client's connection as the loop thread keeps it: its socket, the bytes of the head being
/// read, where it is in its exchange, and the times its deadlines count from.
///
/// Not `Sendable`, and needs no lock: only the loop thread creates, reads and closes it. What
/// the handler's task shares with the loop is the exchange's ``HTTPExchangeOutput``.
final class HTTPConnection {
    /// Where the connection is.
    enum Phase {
        /// Reading the next request's head (nothing of it yet, or part of it).
        case awaitingRequest
        /// A response is being produced or sent, through this queue; the next request waits.
        case responding(HTTPExchangeOutput)
        /// The last response is sent and the write side shut: reading and dropping what the
        /// client still sends until it closes or `until`, so that closing with unread bytes
        /// does not reset the connection before the client read the response.
        case lingering(until: UInt64)
    }

    /// The token epoll reports the socket's events with; never reused.
    let token: UInt64
    /// The socket.
    let descriptor: Int32
    /// The client's address (`127.0.0.1:50312`).
    let peer: String
    /// Bytes received and not yet taken by a request head.
    var input: [UInt8] = []
    /// The parser of the head in `input`.
    var parser: HTTPRequestParser
    /// Where the connection is.
    var phase = Phase.awaitingRequest
    /// The events epoll watches the socket for now.
    var interest: UInt32
    /// When the connection last began to wait for a request (accepted, or a response sent).
    var idleSince: UInt64
    /// When the first byte of the head being read arrived.
    var headStartedAt: UInt64?
    /// Since when queued output has waited with none of it taken by the client.
    var stalledSince: UInt64?
    /// The task answering the current request, while responding.
    var exchange: UInt64?
    /// Bytes dropped while lingering.
    var discarded = 0

    /// A connection accepted at `now`, watched for `interest`.
    init(token: UInt64, descriptor: Int32, peer: String, limits: HTTPLimits, interest: UInt32, now: UInt64) {
        self.token = token
        self.descriptor = descriptor
        self.peer = peer
        self.parser = HTTPRequestParser(limits: limits)
        self.interest = interest
        self.idleSince = now
    }
}
