import Synchronization

/// The bytes of one response on their way to the client: the handler's task queues them, the
/// loop thread sends them as the socket takes them.
///
/// This is where memory stays bounded: once ``HTTPLimits/outputHighWater`` bytes are queued,
/// ``waitForRoom()`` suspends the writer until the loop has sent enough (it resumes the writer
/// from the send that brings the queue below the mark), so a client that stops reading holds
/// the mark and one write, not the whole body. When the connection ends first (the client left,
/// the write timeout passed, the server stops) the queue is dropped and every writer, waiting or
/// not, gets the reason as ``HTTPBodyWriteError``.
final class HTTPExchangeOutput: Sendable {
    /// How the exchange ended, once the handler's task is done with it.
    enum Ending: Sendable {
        /// Complete; the connection takes the next request.
        case keepAlive
        /// Complete; the connection closes once the bytes are sent.
        case close
        /// Broken (the stream threw or wrote the wrong length): the connection closes at once.
        case abort
    }

    /// What one ``send(_:)`` achieved.
    struct SendReport {
        /// Bytes sent.
        var sent = 0
        /// Whether bytes remain queued.
        var hasPending = false
        /// The socket's error, if a send failed.
        var failure: SocketErrno?
        /// The exchange's ending, if the handler's task is done.
        var ending: Ending?
    }

    private struct State {
        var chunks: [[UInt8]] = []
        /// The first chunk not sent in full, and how much of it was.
        var first = 0
        var offset = 0
        var queued = 0
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter: UInt64 = 0
        var failure: HTTPBodyWriteError?
        var ending: Ending?
        var bodyBytes: Int64 = 0
        var bodyEnded = false
    }

    /// Chunks smaller than this are appended to the last one, so that a stream of small writes
    /// (a live tail's events) goes out in a few `send` calls, not one each.
    private static let coalescingSize = 16 * 1024

    /// The token of the connection the bytes are for.
    let token: UInt64
    private let highWater: Int
    private let mailbox: HTTPLoopMailbox
    /// Guards the queue, the waiters and the ending. The loop sends while holding it: the socket
    /// is non-blocking, so a send is a copy into the kernel, and the queue needs no second copy.
    private let state = Mutex(State())

    /// An empty queue for the connection with `token`, whose loop `mailbox` hears of new bytes.
    init(token: UInt64, highWater: Int, mailbox: HTTPLoopMailbox) {
        self.token = token
        self.highWater = max(1, highWater)
        self.mailbox = mailbox
    }

    // MARK: The handler's side

    /// Queues `bytes` as they are (a head, a whole body).
    func enqueue(_ bytes: [UInt8]) throws(HTTPBodyWriteError) {
        try queue { state throws(HTTPBodyWriteError) in
            guard !state.bodyEnded else { throw .bodyEnded }
            return [bytes]
        }
    }

    /// Queues `bytes` of a streamed body in `framing`: counted against a declared length,
    /// wrapped in a chunk, or as they are.
    func enqueueBody(_ bytes: [UInt8], framing: HTTPBodyFraming) throws(HTTPBodyWriteError) {
        try queue { state throws(HTTPBodyWriteError) in
            guard !state.bodyEnded else { throw .bodyEnded }
            guard !bytes.isEmpty else { return [] }
            let written = state.bodyBytes + Int64(bytes.count)
            switch framing {
            case .none:
                return []
            case .length(let declared):
                guard written <= declared else { throw .lengthMismatch(declared: declared, written: written) }
                state.bodyBytes = written
                return [bytes]
            case .chunked:
                state.bodyBytes = written
                // An empty chunk would end the body: empty writes never get here.
                return [Array("\(String(bytes.count, radix: 16))\r\n".utf8), bytes, Self.crlf]
            case .closeDelimited:
                state.bodyBytes = written
                return [bytes]
            }
        }
    }

    /// Ends a streamed body: checks a declared length was met, writes the last chunk.
    func endBody(framing: HTTPBodyFraming) throws(HTTPBodyWriteError) {
        try queue { state throws(HTTPBodyWriteError) in
            guard !state.bodyEnded else { throw .bodyEnded }
            state.bodyEnded = true
            switch framing {
            case .length(let declared) where state.bodyBytes != declared:
                throw .lengthMismatch(declared: declared, written: state.bodyBytes)
            case .chunked:
                return [Self.lastChunk]
            default:
                return []
            }
        }
    }

    /// Returns once fewer than the high-water mark of bytes are queued.
    /// - Throws: why the connection ended, or ``HTTPBodyWriteError/cancelled``.
    func waitForRoom() async throws(HTTPBodyWriteError) {
        let id: UInt64
        switch state.withLock({ state -> Result<UInt64, HTTPBodyWriteError>? in
            if let failure = state.failure { return .failure(failure) }
            if state.queued < highWater { return nil }
            defer { state.nextWaiter += 1 }
            return .success(state.nextWaiter)
        }) {
        case nil: return
        case .failure(let error)?: throw error
        case .success(let waiter)?: id = waiter
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let now = state.withLock { state -> Result<Void, HTTPBodyWriteError>? in
                        if let failure = state.failure { return .failure(failure) }
                        if state.queued < highWater { return .success(()) }
                        // Cancellation sets the flag before it runs the handler below, which takes
                        // this lock: either it is seen here, or the handler finds the waiter.
                        if Task.isCancelled { return .failure(.cancelled) }
                        state.waiters[id] = continuation
                        return nil
                    }
                    if let now { continuation.resume(with: now.mapError { $0 }) }
                }
            } onCancel: {
                let (waiter, failure) = state.withLock { ($0.waiters.removeValue(forKey: id), $0.failure) }
                waiter?.resume(throwing: failure ?? .cancelled)
            }
        } catch let error as HTTPBodyWriteError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Marks the handler's task done; the loop sends what is queued, then acts on `ending`.
    func finish(_ ending: Ending) {
        let isFirst = state.withLock { state in
            guard state.ending == nil else { return false }
            state.ending = ending
            return true
        }
        if isFirst { mailbox.post(token) }
    }

    // MARK: The loop's side

    /// Sends queued bytes with `write` (a non-blocking `send`) until the queue is empty, the
    /// socket is full (`EAGAIN`) or it fails; wakes the writers once below the mark.
    func send(_ write: (UnsafeRawBufferPointer) -> Result<Int, SocketErrno>) -> SendReport {
        let (report, waiters) = state.withLock { state -> (SendReport, [CheckedContinuation<Void, any Error>]) in
            var report = SendReport()
            sending: while state.first < state.chunks.count {
                let offset = state.offset
                let result = state.chunks[state.first].withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                switch result {
                case .success(let count):
                    report.sent += count
                    state.queued -= count
                    state.offset += count
                    if state.offset == state.chunks[state.first].count {
                        state.chunks[state.first] = []
                        state.first += 1
                        state.offset = 0
                    }
                case .failure(let error):
                    if !error.wouldBlock { report.failure = error }
                    break sending
                }
            }
            if state.first == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.first = 0
            } else if state.first >= 32 && state.first * 2 >= state.chunks.count {
                state.chunks.removeFirst(state.first)
                state.first = 0
            }
            report.hasPending = state.queued > 0
            report.ending = state.ending
            guard state.queued < highWater, !state.waiters.isEmpty else { return (report, []) }
            defer { state.waiters.removeAll() }
            return (report, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume() }
        return report
    }

    /// Why the exchange ended early, if it did.
    var failure: HTTPBodyWriteError? { state.withLock { $0.failure } }

    /// Ends the exchange for `reason` (the connection is closing): drops the queue and makes
    /// every write, waiting or to come, throw `reason`. Only the first reason is kept.
    func fail(_ reason: HTTPBodyWriteError) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard state.failure == nil else { return [] }
            state.failure = reason
            state.chunks = []
            state.first = 0
            state.offset = 0
            state.queued = 0
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(throwing: reason) }
    }

    // MARK: Queueing

    private static let crlf = Array("\r\n".utf8)
    private static let lastChunk = Array("0\r\n\r\n".utf8)

    /// Appends the chunks `make` returns (it may throw to refuse, or change the body's state);
    /// tells the loop when the queue was empty, since otherwise it is already sending.
    private func queue(_ make: (inout State) throws(HTTPBodyWriteError) -> [[UInt8]]) throws(HTTPBodyWriteError) {
        let wasEmpty = try state.withLock { state throws(HTTPBodyWriteError) -> Bool in
            if let failure = state.failure { throw failure }
            guard state.ending == nil else { throw .bodyEnded }
            let wasEmpty = state.queued == 0
            for chunk in try make(&state) where !chunk.isEmpty {
                state.queued += chunk.count
                if let last = state.chunks.indices.last, last >= state.first, state.chunks[last].count < Self.coalescingSize,
                    chunk.count < Self.coalescingSize
                {
                    state.chunks[last].append(contentsOf: chunk)
                } else {
                    state.chunks.append(chunk)
                }
            }
            return wasEmpty && state.queued > 0
        }
        if wasEmpty { mailbox.post(token) }
    }
}
