import Glibc

/// A connection's way through the loop: read and parse a head, respond, send, then the next
/// request or a close.
extension HTTPEventLoop {
    /// The socket has bytes, an end of input, or (while responding) the client shut its side.
    func readable(_ connection: HTTPConnection) {
        switch connection.phase {
        case .awaitingRequest:
            receive(connection)
        case .responding:
            // Only EPOLLRDHUP is watched while responding: the client closed its side. Clients
            // do not half-close while waiting for an answer, so it has left; ending now frees a
            // live tail's reader at once instead of at its next write.
            close(connection, reason: .peerClosed)
        case .lingering:
            drain(connection)
        }
    }

    /// Reads once and parses what the head has so far.
    private func receive(_ connection: HTTPConnection) {
        switch read(connection) {
        case .success(0):
            // The client closed between requests, or inside a head it never finished.
            close(connection, reason: .peerClosed)
        case .success(let count):
            if connection.input.isEmpty && connection.headStartedAt == nil { connection.headStartedAt = now }
            connection.input.append(contentsOf: readBuffer[0..<count])
            parseInput(connection)
        case .failure(let error) where error.wouldBlock:
            return
        case .failure:
            close(connection, reason: .peerClosed)
        }
    }

    private func read(_ connection: HTTPConnection) -> Result<Int, SocketErrno> {
        readBuffer.withUnsafeMutableBytes { raw in
            SocketCall.valueOrErrno { recv(connection.descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT)) }
        }
    }

    /// Whether the socket has something the loop has not read: bytes, the client's end, or an
    /// error (each of which ``readable(_:)`` takes care of). Peeks one byte, taking nothing.
    func hasUnreadInput(_ connection: HTTPConnection) -> Bool {
        var byte: UInt8 = 0
        let peeked = SocketCall.valueOrErrno { recv(connection.descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) }
        if case .failure(let error) = peeked, error.wouldBlock { return false }
        return true
    }

    /// Parses the head in the connection's input: a complete one is dispatched, a bad one
    /// answered by the server.
    func parseInput(_ connection: HTTPConnection) {
        switch connection.parser.parse(connection.input) {
        case .incomplete:
            return
        case .rejected(let rejection):
            context.counters.update { counters in
                if [414, 431].contains(rejection.status) { counters.refused += 1 } else { counters.malformed += 1 }
            }
            let response = HTTPResponseHead.serverResponse(status: rejection.status, reason: rejection.reason, isHead: rejection.isHead)
            respond(connection, with: response)
        case .complete(let head, let consumed):
            connection.input.removeFirst(consumed)
            connection.parser.reset()
            connection.headStartedAt = nil
            context.counters.update { $0.requests += 1 }
            dispatch(head, on: connection)
        }
    }

    /// Sends a response the server made itself, then closes: after a refused head the rest of
    /// the input (a body, say) cannot be told apart from a next request.
    private func respond(_ connection: HTTPConnection, with bytes: [UInt8]) {
        let output = HTTPExchangeOutput(token: connection.token, highWater: context.limits.outputHighWater, mailbox: context.mailbox)
        do {
            try output.enqueue(bytes)
        } catch {
            close(connection, reason: error)
            return
        }
        output.finish(.close)
        connection.phase = .responding(output)
        connection.stalledSince = nil
        flush(connection)
    }

    /// Sends what the exchange queued, as much as the socket takes; once all is sent and the
    /// task is done, goes on as its ending says.
    func flush(_ connection: HTTPConnection) {
        guard case .responding(let output) = connection.phase else { return }
        let descriptor = connection.descriptor
        let report = output.send { raw in
            SocketCall.valueOrErrno {
                // MSG_NOSIGNAL: a client gone makes this fail with EPIPE rather than raise
                // SIGPIPE, whose default action would end the process.
                send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
        }
        if report.failure != nil {
            close(connection, reason: .peerClosed)
            return
        }
        if report.sent > 0 || !report.hasPending {
            connection.stalledSince = report.hasPending ? now : nil
        } else if connection.stalledSince == nil {
            connection.stalledSince = now
        }
        guard !report.hasPending, let ending = report.ending else {
            updateInterest(connection, hasPending: report.hasPending)
            return
        }
        switch ending {
        case .abort: close(connection, reason: .peerClosed)
        case .close: linger(connection)
        case .keepAlive: awaitNextRequest(connection)
        }
    }

    /// The response is sent: the connection waits for the next request, which may already be
    /// in its input (pipelined).
    private func awaitNextRequest(_ connection: HTTPConnection) {
        connection.phase = .awaitingRequest
        connection.exchange = nil
        connection.idleSince = now
        connection.stalledSince = nil
        updateInterest(connection, hasPending: false)
        if !connection.input.isEmpty {
            connection.headStartedAt = now
            parseInput(connection)
        }
    }

    /// Shuts the write side (the client sees the end) and drops input until the client closes.
    private func linger(_ connection: HTTPConnection) {
        _ = shutdown(connection.descriptor, Int32(SHUT_WR))
        connection.phase = .lingering(until: now &+ lingerTimeout)
        connection.input = []
        updateInterest(connection, hasPending: false)
    }

    /// Drops what a lingering connection sends; closes on its end, or when it sends too much.
    private func drain(_ connection: HTTPConnection) {
        switch read(connection) {
        case .success(let count) where count > 0:
            connection.discarded += count
            if connection.discarded > 256 * 1024 { close(connection, reason: .peerClosed) }
        case .failure(let error) where error.wouldBlock:
            return
        default:
            close(connection, reason: .peerClosed)
        }
    }

    /// Closes the socket, once, and tells a response still running why.
    func close(_ connection: HTTPConnection, reason: HTTPBodyWriteError) {
        guard connections.removeValue(forKey: connection.token) != nil else { return }
        if case .responding(let output) = connection.phase {
            output.fail(reason)
            // A handler still computing its answer (or a live tail waiting for events) learns
            // now that nobody will read it, not at its next write.
            if let exchange = connection.exchange { context.tasks.cancel(exchange) }
        }
        // Counted before the close: a client that sees its connection end reads counts that
        // already say so.
        context.counters.update { $0.connectionsOpen -= 1 }
        SocketCall.close(connection.descriptor)
    }

    /// Watches the socket for what its phase needs: a head's bytes while awaiting a request,
    /// room to write only while output is queued (level-triggered, it would report room all the
    /// time), and the client's leaving while responding.
    func updateInterest(_ connection: HTTPConnection, hasPending: Bool) {
        let wanted: UInt32
        switch connection.phase {
        case .awaitingRequest, .lingering:
            wanted = LinuxCalls.epollIn | LinuxCalls.epollRdHup
        case .responding:
            wanted = (hasPending ? LinuxCalls.epollOut : 0) | LinuxCalls.epollRdHup
        }
        guard wanted != connection.interest else { return }
        if context.epoll.modify(connection.descriptor, events: wanted, token: connection.token) == nil {
            connection.interest = wanted
        } else {
            close(connection, reason: .peerClosed)
        }
    }
}
