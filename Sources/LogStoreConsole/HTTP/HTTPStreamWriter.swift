/// The ``HTTPBodyWriter`` a streamed body writes to: frames each write (a chunk, or counted
/// against the declared length) and waits while the client is behind.
struct HTTPStreamWriter: HTTPBodyWriter {
    /// The response's queue.
    let output: HTTPExchangeOutput
    /// The body's framing, from the response's head.
    let framing: HTTPBodyFraming

    /// Queues `bytes`, then waits until the queue is below the high-water mark.
    /// - Throws: ``HTTPBodyWriteError``: the client left, the write timeout passed, the server is
    ///   stopping, the task was cancelled, or the write passes the declared length.
    func write(_ bytes: [UInt8]) async throws {
        // A stream that never waits on the queue (a client keeping up) still ends on cancellation.
        if Task.isCancelled { throw output.failure ?? .cancelled }
        try output.enqueueBody(bytes, framing: framing)
        try await output.waitForRoom()
    }
}
