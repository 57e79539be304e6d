/// The deadlines: a connection idle too long, a head too slow, a client not reading, a close
/// lingering too long.
///
/// Each connection keeps the times its deadlines count from, and every ``checkInterval`` the
/// loop compares them with the clock: one pass over the open connections, a few comparisons
/// each (4,096 connections take microseconds), with nothing to keep sorted when a deadline
/// moves — which it does on every send that makes progress.
extension HTTPEventLoop {
    /// Closes every connection past a deadline.
    func checkDeadlines() {
        var expired: [(connection: HTTPConnection, kind: Expiry)] = []
        for connection in connections.values {
            if let kind = expiry(of: connection) { expired.append((connection, kind)) }
        }
        for (connection, kind) in expired {
            // That the wait which began this turn reported nothing new to read on this socket is
            // no proof the client sent nothing: bytes can arrive after the wait returned (the loop
            // thread preempted before it read the clock, a long batch of other events) or wait
            // beyond one wait's batch of events. Closing then would reset a request that reached
            // the server, which its client cannot tell from a lost one. So a deadline on the
            // client's sending is judged on all it sent: what is in the socket is read first (a
            // complete head goes to its handler; a first byte starts the head's clock in place of
            // the idle one), and the connection closes only if still past a deadline after that.
            if kind == .idle || kind == .head, hasUnreadInput(connection) {
                readable(connection)
                guard connections[connection.token] != nil, let still = expiry(of: connection) else { continue }
                expire(connection, still)
            } else {
                expire(connection, kind)
            }
        }
    }

    /// Which deadline `connection` is past at `now`, if any.
    private func expiry(of connection: HTTPConnection) -> Expiry? {
        let limits = context.limits
        switch connection.phase {
        case .awaitingRequest:
            if let start = connection.headStartedAt {
                // From the head's first byte, whatever arrived since: a client trickling bytes
                // cannot push it back.
                if elapsed(since: start) >= limits.requestHeadTimeout.nanosecondsClamped { return .head }
            } else if elapsed(since: connection.idleSince) >= limits.idleTimeout.nanosecondsClamped {
                return .idle
            }
        case .responding:
            // Only while output waits on the client: a handler taking its time (a live tail
            // between events) is not the client's fault.
            if let start = connection.stalledSince, elapsed(since: start) >= limits.writeTimeout.nanosecondsClamped {
                return .write
            }
        case .lingering(let until):
            if now >= until { return .linger }
        }
        return nil
    }

    /// Counts and closes a connection past its deadline.
    private func expire(_ connection: HTTPConnection, _ kind: Expiry) {
        switch kind {
        case .idle: context.counters.update { $0.closedIdle += 1 }
        case .head, .write: context.counters.update { $0.timedOut += 1 }
        case .linger: break
        }
        close(connection, reason: .timedOut)
    }

    /// Which deadline passed.
    private enum Expiry {
        case idle, head, write, linger
    }

    private func elapsed(since start: UInt64) -> UInt64 {
        now >= start ? now - start : 0
    }
}
