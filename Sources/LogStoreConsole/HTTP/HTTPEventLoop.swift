import Glibc

/// What the loop thread is handed when the server starts: all of it `Sendable`, made on the
/// starting thread, so that a failure to open any of it is thrown from ``HTTPServer/init``.
struct HTTPLoopContext: Sendable {
    /// The C library's epoll, eventfd and accept4.
    let calls: LinuxCalls.Functions
    /// The epoll instance, the listener and the mailbox already in it.
    let epoll: EPoll
    /// The listening socket.
    let listener: ListeningSocket
    /// How tasks and ``HTTPServer/stop()`` reach the loop.
    let mailbox: HTTPLoopMailbox
    /// Answers the requests.
    let handler: any HTTPHandler
    /// The bounds on clients.
    let limits: HTTPLimits
    /// The running handler tasks.
    let tasks: HTTPHandlerTasks
    /// The statistics the loop keeps.
    let counters: HTTPServerCounters
    /// Completed as the loop thread ends, every descriptor it owned closed.
    let exited: HTTPCompletionSignal
}

/// The server's socket loop, on a thread of its own: accepts, reads and parses heads, hands each
/// request to a task, sends what the tasks queue, and enforces the deadlines.
///
/// It never waits but in `epoll_wait`, and never runs a handler: every socket is non-blocking,
/// and the handlers run on the concurrency pool (``HTTPHandlerTasks``), reaching back through
/// the ``HTTPLoopMailbox``. All its state is its own thread's, so none of it needs a lock.
final class HTTPEventLoop {
    /// The epoll token of the listening socket.
    static let listenerToken: UInt64 = 0
    /// The epoll token of the mailbox's `eventfd`; connections' tokens count on from 2, never
    /// reused, so an event of a connection closed earlier in the same batch finds no entry.
    static let mailboxToken: UInt64 = 1

    /// What the server handed over.
    let context: HTTPLoopContext
    /// The open connections, by token.
    var connections: [UInt64: HTTPConnection] = [:]
    /// The time of the current turn (``MonotonicClock``), read once after each wait.
    var now: UInt64
    private var nextToken: UInt64 = 2
    private var nextExchange: UInt64 = 0
    private var events = EPollEvents(capacity: 256)
    /// One read's worth: at most this much of a connection's bytes per wake-up.
    var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    /// While accepting fails for want of descriptors: when to try again.
    private var listenerPausedUntil: UInt64?
    /// When the deadlines are next checked.
    private var nextCheck: UInt64
    /// How often the deadlines are checked: a quarter of the shortest timeout, between 10 ms
    /// and 1 s, so a timeout fires at most a quarter late.
    let checkInterval: UInt64
    /// How long a closing connection lingers for the client to close first.
    let lingerTimeout: UInt64

    /// A loop over `context`'s sockets; ``run()`` starts it.
    init(context: HTTPLoopContext) {
        self.context = context
        let limits = context.limits
        let shortest = [limits.idleTimeout, limits.requestHeadTimeout, limits.writeTimeout].map(\.nanosecondsClamped).min() ?? 0
        checkInterval = min(1_000_000_000, max(10_000_000, shortest / 4))
        lingerTimeout = min(2_000_000_000, max(100_000_000, limits.requestHeadTimeout.nanosecondsClamped))
        now = MonotonicClock.now()
        nextCheck = now &+ checkInterval
    }

    /// Runs until the mailbox asks it to stop, then closes everything it owns.
    func run() {
        var stopping = false
        while !stopping {
            let count = context.epoll.wait(into: &events, timeoutMilliseconds: waitTimeout())
            now = MonotonicClock.now()
            for index in 0..<count {
                let (bits, token) = events[index]
                switch token {
                case Self.listenerToken: acceptConnections()
                case Self.mailboxToken: stopping = readMailbox() || stopping
                default: handle(bits, on: token)
                }
            }
            if now >= nextCheck {
                checkDeadlines()
                nextCheck = now &+ checkInterval
            }
            if let until = listenerPausedUntil, now >= until { resumeListener() }
        }
        shutDown()
    }

    /// Milliseconds until the next deadline check, or -1 (no timeout) with nothing to check: an
    /// idle server sleeps in the kernel until a client or the mailbox wakes it.
    private func waitTimeout() -> Int32 {
        guard !connections.isEmpty || listenerPausedUntil != nil else { return -1 }
        let wait = nextCheck > now ? nextCheck - now : 0
        return Int32(clamping: (wait + 999_999) / 1_000_000)
    }

    private func readMailbox() -> Bool {
        let (tokens, stop) = context.mailbox.take()
        for token in tokens {
            if let connection = connections[token] { flush(connection) }
        }
        return stop
    }

    private func handle(_ bits: UInt32, on token: UInt64) {
        // A connection closed earlier in this batch has no entry any more: its events are stale.
        guard let connection = connections[token] else { return }
        if bits & (LinuxCalls.epollErr | LinuxCalls.epollHup) != 0 {
            close(connection, reason: .peerClosed)
            return
        }
        if bits & LinuxCalls.epollOut != 0 {
            flush(connection)
            guard connections[token] != nil else { return }
        }
        if bits & (LinuxCalls.epollIn | LinuxCalls.epollRdHup) != 0 { readable(connection) }
    }

    // MARK: Accepting

    private func acceptConnections() {
        guard listenerPausedUntil == nil else { return }
        // A bounded batch: the listener is level-triggered, so the rest wait for the next turn
        // instead of the connections already open.
        for _ in 0..<64 {
            switch context.listener.accept(using: context.calls) {
            case .success(let accepted):
                context.counters.update { $0.connectionsAccepted += 1 }
                if connections.count >= context.limits.maxConnections {
                    refuse(accepted.descriptor)
                    continue
                }
                open(accepted.descriptor, peer: accepted.peer?.endpoint ?? "?")
            case .failure(let error) where error.wouldBlock:
                return
            case .failure(let error) where [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.code):
                // Out of descriptors: the pending connection stays queued and the listener stays
                // readable, so a level-triggered loop would spin. Stop watching it for a while.
                context.counters.update { $0.refused += 1 }
                pauseListener()
                return
            case .failure:
                // The client gave up before it was accepted (ECONNABORTED) and the like.
                continue
            }
        }
    }

    private func open(_ descriptor: Int32, peer: String) {
        // Responses are queued whole and sent as one; Nagle's delay would only hold back the
        // last segment of each (a chunk's end, a small body).
        _ = SocketCall.setOption(descriptor, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        let token = nextToken
        nextToken += 1
        let interest = LinuxCalls.epollIn | LinuxCalls.epollRdHup
        guard context.epoll.add(descriptor, events: interest, token: token) == nil else {
            SocketCall.close(descriptor)
            return
        }
        connections[token] = HTTPConnection(
            token: token, descriptor: descriptor, peer: peer, limits: context.limits, interest: interest, now: now)
        context.counters.update { $0.connectionsOpen += 1 }
    }

    /// One connection too many: a 503 if the socket takes it at once, then closed.
    private func refuse(_ descriptor: Int32) {
        context.counters.update { $0.refused += 1 }
        let response = HTTPResponseHead.serverResponse(status: 503, reason: "too many connections", isHead: false)
        _ = response.withUnsafeBytes { raw in
            SocketCall.valueOrErrno { send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        }
        _ = shutdown(descriptor, Int32(SHUT_WR))
        SocketCall.close(descriptor)
    }

    private func pauseListener() {
        listenerPausedUntil = now &+ 100_000_000
        _ = context.epoll.modify(context.listener.descriptor, events: 0, token: Self.listenerToken)
    }

    private func resumeListener() {
        listenerPausedUntil = nil
        _ = context.epoll.modify(context.listener.descriptor, events: LinuxCalls.epollIn, token: Self.listenerToken)
    }

    // MARK: Requests

    /// Hands `head` to the handler in a task of its own; the connection waits for its response.
    func dispatch(_ head: HTTPRequestHead, on connection: HTTPConnection) {
        let output = HTTPExchangeOutput(token: connection.token, highWater: context.limits.outputHighWater, mailbox: context.mailbox)
        connection.phase = .responding(output)
        connection.stalledSince = nil
        updateInterest(connection, hasPending: false)
        let exchange = nextExchange
        nextExchange += 1
        connection.exchange = exchange
        let (handler, peer) = (context.handler, connection.peer)
        let started = context.tasks.start(exchange) {
            await HTTPExchangeRunner.run(head, peer: peer, handler: handler, output: output)
        }
        if !started { close(connection, reason: .serverStopped) }
    }

    // MARK: Stopping

    private func shutDown() {
        SocketCall.close(context.listener.descriptor)
        for connection in Array(connections.values) { close(connection, reason: .serverStopped) }
        context.epoll.close()
        context.exited.complete()
    }
}
