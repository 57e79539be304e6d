import Dispatch
import Foundation
import Synchronization

/// A small HTTP/1.1 server for the console: GET and HEAD, keep-alive, streamed bodies with
/// bounded memory, on one `epoll` loop thread of its own.
///
/// ```swift
/// let server = try HTTPServer(port: 0, handler: routes)
/// print("http://\(server.host):\(server.port)/")
/// …
/// await server.stop()
/// ```
///
/// Threads: the loop thread owns every socket (accept, read, parse, send, deadlines); each
/// request's handler runs in a task on the concurrency pool, one request at a time per
/// connection (pipelined requests are answered in order). A response's bytes reach the loop
/// through its ``HTTPExchangeOutput``, whose high-water mark makes a streamed body's `write`
/// wait for a slow client. Every limit and timeout is in ``HTTPLimits``.
final class HTTPServer: Sendable {
    private enum Lifecycle {
        case running, stopping, stopped
    }

    /// The address bound (`127.0.0.1`, `::1`).
    let host: String
    /// The port bound: the one asked for, or the one the kernel picked for 0.
    let port: UInt16
    /// The limits the server keeps clients within.
    let limits: HTTPLimits

    private let mailbox: HTTPLoopMailbox
    private let tasks: HTTPHandlerTasks
    private let counters: HTTPServerCounters
    private let loopExited: HTTPCompletionSignal
    /// Guards the lifecycle: ``stop()`` and `deinit` signal the loop once.
    private let lifecycle = Mutex(Lifecycle.running)

    /// How long ``stop()`` waits for the loop thread and the handlers' tasks.
    static let stopTimeout: Double = 2

    /// Binds `host`:`port`, listens, and starts serving on a thread of its own before it returns.
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 address (`127.0.0.1`, `::1`, `0.0.0.0`) or `localhost`;
    ///     default loopback.
    ///   - port: the port; 0 (the default) lets the kernel pick a free one (see ``port``).
    ///   - limits: the bounds on clients; defaults in ``HTTPLimits``.
    ///   - handler: answers every well-formed GET and HEAD request.
    /// - Throws: ``HTTPServerError``: a bad address, the address in use, no permission, …
    convenience init(host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPLimits = HTTPLimits(), handler: any HTTPHandler)
        throws(HTTPServerError)
    {
        try self.init(host: host, port: port, limits: limits, calls: LinuxCalls.functions.get(), handler: handler)
    }

    /// A server whose loop makes its epoll, eventfd and accept4 calls through `calls`: tests wrap
    /// one (an `epoll_wait` that stalls, say) to put the loop where a race needs it, which no
    /// timing on a real machine reaches reliably.
    init(
        host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPLimits = HTTPLimits(), calls: LinuxCalls.Functions,
        handler: any HTTPHandler
    ) throws(HTTPServerError) {
        let listener = try ListeningSocket.open(host: host, port: port)
        let epoll: EPoll
        switch EPoll.create(using: calls) {
        case .success(let created): epoll = created
        case .failure(let error):
            SocketCall.close(listener.descriptor)
            throw .from(error, call: "epoll_create1", host: host, port: port)
        }
        let mailbox: HTTPLoopMailbox
        switch HTTPLoopMailbox.make(using: calls) {
        case .success(let made): mailbox = made
        case .failure(let error):
            SocketCall.close(listener.descriptor)
            epoll.close()
            throw .from(error, call: "eventfd", host: host, port: port)
        }
        if let error = epoll.add(listener.descriptor, events: LinuxCalls.epollIn, token: HTTPEventLoop.listenerToken)
            ?? epoll.add(mailbox.descriptor, events: LinuxCalls.epollIn, token: HTTPEventLoop.mailboxToken)
        {
            SocketCall.close(listener.descriptor)
            epoll.close()
            throw .from(error, call: "epoll_ctl", host: host, port: port)
        }
        self.host = listener.address.host
        self.port = listener.address.port
        self.limits = limits
        self.mailbox = mailbox
        tasks = HTTPHandlerTasks()
        counters = HTTPServerCounters()
        loopExited = HTTPCompletionSignal()
        let context = HTTPLoopContext(
            calls: calls, epoll: epoll, listener: listener, mailbox: mailbox, handler: handler, limits: limits,
            tasks: tasks, counters: counters, exited: loopExited)
        // The thread holds the context, not the server: dropping the server runs `deinit`,
        // which stops the loop.
        let thread = Thread { HTTPEventLoop(context: context).run() }
        thread.name = "LogStoreConsole HTTP :\(self.port)"
        thread.start()
    }

    deinit {
        if lifecycle.withLock({ $0 == .running }) { signalStop() }
    }

    /// The counters so far.
    var statistics: HTTPServerStatistics { counters.snapshot }

    /// Stops accepting, closes every connection, cancels the handlers still running (a streamed
    /// body's next write throws, so a never-ending stream ends), and waits for them and for the
    /// loop thread, up to ``stopTimeout`` seconds. Calling it again waits the same way.
    func stop() async {
        let isFirst = lifecycle.withLock { lifecycle in
            guard lifecycle == .running else { return false }
            lifecycle = .stopping
            return true
        }
        if isFirst { signalStop() }
        let deadline = DispatchTime.now() + Self.stopTimeout
        _ = await loopExited.wait(until: deadline)
        _ = await tasks.drained.wait(until: deadline)
        lifecycle.withLock { $0 = .stopped }
    }

    private func signalStop() {
        mailbox.requestStop()
        tasks.closeAndCancelAll()
    }
}
