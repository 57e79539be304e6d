/// The bounds an ``HTTPServer`` keeps every client within, so that no client (slow, broken or
/// hostile) can hold more than a little memory, a connection slot or a handler for long.
///
/// The defaults suit a console on a developer's machine or beside a server app; tests pass
/// smaller ones.
struct HTTPLimits: Sendable, Equatable {
    /// Longest request line (`GET /path?query HTTP/1.1`) in bytes, line ending excluded; a
    /// longer one is answered 414. Default 8 KiB, as most servers.
    var maxRequestLineBytes: Int
    /// Largest header block in bytes (every field line with its CRLF, and the blank line);
    /// a larger one is answered 431. Default 16 KiB.
    var maxHeaderBytes: Int
    /// Most header fields in a request; more are answered 431. Default 100.
    var maxHeaderCount: Int
    /// Most connections open at once; one more is answered 503 and closed at once (counted in
    /// ``HTTPServerStatistics/refused``). Default 4,096.
    var maxConnections: Int
    /// How long a kept-alive connection may wait for the first byte of its next request (and a
    /// new one for its first). Default 30 s.
    var idleTimeout: Duration
    /// How long a request's head may take from its first byte to its blank line, whatever the
    /// client sends meanwhile: a client trickling a byte at a time (slowloris) is closed then.
    /// Default 10 s.
    var requestHeadTimeout: Duration
    /// How long a response may wait with bytes queued and none taken by the client; the
    /// connection is then closed and the body's writer throws ``HTTPBodyWriteError/timedOut``.
    /// Default 30 s.
    var writeTimeout: Duration
    /// Bytes a response may queue before ``HTTPBodyWriter/write(_:)`` waits for the client to
    /// take some: the memory one connection holds is this plus one write. Default 256 KiB.
    var outputHighWater: Int

    /// Limits with the defaults documented on each property.
    init(
        maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 16 * 1024,
        maxHeaderCount: Int = 100,
        maxConnections: Int = 4096,
        idleTimeout: Duration = .seconds(30),
        requestHeadTimeout: Duration = .seconds(10),
        writeTimeout: Duration = .seconds(30),
        outputHighWater: Int = 256 * 1024
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.requestHeadTimeout = requestHeadTimeout
        self.writeTimeout = writeTimeout
        self.outputHighWater = outputHighWater
    }
}

extension Duration {
    /// The duration in whole nanoseconds, 0 for a negative one, saturating (a `.seconds(.max)`
    /// timeout means never).
    var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflowSum) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return overflowSum ? .max : sum
    }
}
