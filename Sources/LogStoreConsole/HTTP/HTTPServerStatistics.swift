import Synchronization

/// What an ``HTTPServer`` has done since it started, for the console to show.
struct HTTPServerStatistics: Sendable, Equatable {
    /// Connections open now.
    var connectionsOpen = 0
    /// Connections accepted in all (those refused at once included).
    var connectionsAccepted = 0
    /// Requests whose head was read in full and valid (each handed to the handler).
    var requests = 0
    /// Requests and connections refused for a limit: over ``HTTPLimits/maxConnections`` (or out
    /// of file descriptors), a request line or header block too large (414, 431).
    var refused = 0
    /// Requests answered 4xx/5xx by the server itself for malformed input (400, 405, 413, 505).
    var malformed = 0
    /// Connections closed for a request head or a write that took too long.
    var timedOut = 0
    /// Kept-alive connections closed after ``HTTPLimits/idleTimeout`` without a request: normal,
    /// counted apart from ``timedOut``.
    var closedIdle = 0
}

/// The counters behind ``HTTPServer/statistics``: written by the loop thread, read by anyone.
final class HTTPServerCounters: Sendable {
    /// Guards the counters; held for an increment or a copy only.
    private let values = Mutex(HTTPServerStatistics())

    /// A copy of the counters now.
    var snapshot: HTTPServerStatistics { values.withLock { $0 } }

    /// Changes the counters with `change`.
    func update(_ change: (inout HTTPServerStatistics) -> Void) {
        values.withLock { change(&$0) }
    }
}
