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
        let limits = context.limits
        let idle = limits.idleTimeout.nanosecondsClamped
        let head = limits.requestHeadTimeout.nanosecondsClamped
        let write = limits.writeTimeout.nanosecondsClamped
        var expired: [(connection: HTTPConnection, kind: Expiry)] = []
        for connection in connections.values {
            switch connection.phase {
            case .awaitingRequest:
                if let start = connection.headStartedAt {
                    // From the head's first byte, whatever arrived since: a client trickling bytes
                    // cannot push it back.
                    if elapsed(since: start) >= head { expired.append((connection, .head)) }
                } else if elapsed(since: connection.idleSince) >= idle {
                    expired.append((connection, .idle))
                }
            case .responding:
                // Only while output waits on the client: a handler taking its time (a live tail
                // between events) is not the client's fault.
                if let start = connection.stalledSince, elapsed(since: start) >= write { expired.append((connection, .write)) }
            case .lingering(let until):
                if now >= until { expired.append((connection, .linger)) }
            }
        }
        for (connection, kind) in expired {
            switch kind {
            case .idle: context.counters.update { $0.closedIdle += 1 }
            case .head, .write: context.counters.update { $0.timedOut += 1 }
            case .linger: break
            }
            close(connection, reason: .timedOut)
        }
    }

    /// Which deadline passed.
    private enum Expiry {
        case idle, head, write, linger
    }

    private func elapsed(since start: UInt64) -> UInt64 {
        now >= start ? now - start : 0
    }
}
