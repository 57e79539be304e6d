import Glibc

/// An epoll instance: the loop thread's one place to wait for every socket at once.
///
/// Registrations are level-triggered: a socket that still has bytes to read or room to write is
/// reported again at the next wait. The loop reads at most one buffer per connection per wait (so
/// one busy client cannot starve the others) and accepts a bounded batch, which edge-triggering
/// would turn into a duty to drain until `EAGAIN` or lose the wake-up. The price is that interest
/// must follow the connection's state (`EPOLLOUT` only while output is queued, `EPOLLIN` only
/// while a request is awaited), which the loop keeps in step through ``modify(_:events:token:)``.
struct EPoll: Sendable {
    /// The epoll descriptor.
    let descriptor: Int32
    private let calls: LinuxCalls.Functions

    /// A new epoll instance, close-on-exec.
    static func create(using calls: LinuxCalls.Functions) -> Result<EPoll, SocketErrno> {
        SocketCall.valueOrErrno { calls.epollCreate1(LinuxCalls.closeOnExec) }.map { EPoll(descriptor: $0, calls: calls) }
    }

    /// Watches `descriptor` for `events`; a wait reports them with `token`.
    func add(_ descriptor: Int32, events: UInt32, token: UInt64) -> SocketErrno? {
        control(LinuxCalls.epollCtlAdd, descriptor, events: events, token: token)
    }

    /// Changes what `descriptor` is watched for.
    func modify(_ descriptor: Int32, events: UInt32, token: UInt64) -> SocketErrno? {
        control(LinuxCalls.epollCtlMod, descriptor, events: events, token: token)
    }

    /// Waits up to `timeoutMilliseconds` (-1: without end) for events, writes them into `events`
    /// and returns how many; 0 after a timeout or a signal (the caller recomputes its timeout).
    func wait(into events: inout EPollEvents, timeoutMilliseconds: Int32) -> Int {
        let capacity = Int32(events.capacity)
        let count = events.bytes.withUnsafeMutableBytes { buffer in
            calls.epollWait(descriptor, buffer.baseAddress, capacity, timeoutMilliseconds)
        }
        return max(0, Int(count))
    }

    /// Closes the epoll descriptor (the loop thread, once, as it ends).
    func close() {
        SocketCall.close(descriptor)
    }

    private func control(_ operation: Int32, _ target: Int32, events: UInt32, token: UInt64) -> SocketErrno? {
        var event = [UInt8](repeating: 0, count: LinuxCalls.epollEventSize)
        event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: token, toByteOffset: LinuxCalls.epollEventDataOffset, as: UInt64.self)
        }
        return SocketCall.errnoOf {
            event.withUnsafeMutableBytes { raw in calls.epollCtl(descriptor, operation, target, raw.baseAddress) }
        }
    }
}

/// Room for the events one ``EPoll/wait(into:timeoutMilliseconds:)`` reports, in the kernel's
/// `struct epoll_event` layout (``LinuxCalls/epollEventSize``).
struct EPollEvents {
    /// Events one wait can report at most; more stay pending for the next.
    let capacity: Int
    fileprivate var bytes: [UInt8]

    /// Room for `capacity` events.
    init(capacity: Int) {
        self.capacity = capacity
        bytes = [UInt8](repeating: 0, count: capacity * LinuxCalls.epollEventSize)
    }

    /// The event bits and token of the `index`th event of the last wait.
    subscript(index: Int) -> (events: UInt32, token: UInt64) {
        bytes.withUnsafeBytes { raw in
            let start = index * LinuxCalls.epollEventSize
            return (
                raw.loadUnaligned(fromByteOffset: start, as: UInt32.self),
                raw.loadUnaligned(fromByteOffset: start + LinuxCalls.epollEventDataOffset, as: UInt64.self)
            )
        }
    }
}
