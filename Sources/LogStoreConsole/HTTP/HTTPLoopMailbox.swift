import Glibc
import Synchronization

/// How the handlers' tasks and ``HTTPServer/stop()`` reach the loop thread: a set of connections
/// with news (output queued, a response finished) and a stop request, behind an `eventfd` the
/// loop waits on with its sockets.
///
/// The `eventfd` is written only when the set goes from empty to not, so a stream of small
/// writes costs one wake-up per loop turn, not one per write. It is closed when the last holder
/// lets go (the server, the loop, the responses still running), never while a task could still
/// write to it: a descriptor number closed early could by then name another file.
final class HTTPLoopMailbox: Sendable {
    private struct News {
        var connections: Set<UInt64> = []
        var stopRequested = false
    }

    /// The `eventfd`, non-blocking and close-on-exec.
    let descriptor: Int32
    /// Guards the news; held to add a connection or take them all.
    private let news = Mutex(News())

    /// A mailbox on a new `eventfd`.
    static func make(using calls: LinuxCalls.Functions) -> Result<HTTPLoopMailbox, SocketErrno> {
        SocketCall.valueOrErrno { calls.eventFD(0, LinuxCalls.nonBlocking | LinuxCalls.closeOnExec) }
            .map(HTTPLoopMailbox.init(descriptor:))
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        SocketCall.close(descriptor)
    }

    /// Tells the loop that the connection with `token` has news.
    func post(_ token: UInt64) {
        let wake = news.withLock { news in
            let wasEmpty = news.connections.isEmpty && !news.stopRequested
            news.connections.insert(token)
            return wasEmpty
        }
        if wake { signal() }
    }

    /// Asks the loop to stop.
    func requestStop() {
        news.withLock { $0.stopRequested = true }
        signal()
    }

    /// The loop's side: the connections with news since the last call, and whether to stop.
    func take() -> (connections: Set<UInt64>, stop: Bool) {
        // Reset the counter first: a post after it signals again, so none is missed.
        var counter: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &counter) { read(descriptor, $0.baseAddress, 8) }
        return news.withLock { news in
            defer { news.connections.removeAll(keepingCapacity: true) }
            return (news.connections, news.stopRequested)
        }
    }

    private func signal() {
        var one: UInt64 = 1
        // EAGAIN means the counter is at its maximum: the loop has a wake-up pending anyway.
        _ = SocketCall.valueOrErrno { withUnsafeBytes(of: &one) { write(descriptor, $0.baseAddress, 8) } }
    }
}
