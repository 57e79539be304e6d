import Dispatch
import Synchronization

/// Read-only connections, each confined to its own serial queue, so queries run beside the
/// writer (WAL) and never on Swift's cooperative threads.
///
/// A read runs on the first connection that is free, and waits in line only while every one is
/// busy. Handed out in turn instead, reads queued behind a long one (an export, a long query)
/// on its connection while another stood idle, so a live tail or a console waited for the
/// export to end.
///
/// Connections open lazily: opening a store must stay fast, and many stores are written far
/// more than they are read.
final class ReaderPool: Sendable {
    private let readers: [Reader]
    /// Free readers and the reads waiting for one.
    private let state: Mutex<State>
    /// Set by ``close()``: a read that comes later must not open a connection nobody closes.
    private let isClosed = Atomic<Bool>(false)

    private final class Reader: Sendable {
        let queue: DispatchQueue
        /// Guards the connection; only this reader's serial queue takes it, so it never waits.
        let connection = Mutex<Connection?>(nil)

        init(index: Int) {
            queue = DispatchQueue(label: "logstore-reader-\(index)")
        }
    }

    /// A read waiting for a free reader: it runs its body on the reader it is given, or fails
    /// as closed when given none (the pool closed while it waited).
    private typealias Job = @Sendable (Reader?) -> Void

    private struct State {
        /// Free readers; the last freed is taken first, so one connection serves a quiet store.
        var free: [Reader]
        /// First come, first served; a handful at most in practice.
        var waiting: [Job] = []
    }

    /// Opens one read-only connection like the pool's (the live tail's watch keeps its own).
    let open: @Sendable () throws -> Connection

    /// - Parameters:
    ///   - count: how many connections (and queries running at once) at most.
    ///   - open: opens one read-only connection.
    init(count: Int, open: @escaping @Sendable () throws -> Connection) {
        let readers = (0..<max(1, count)).map(Reader.init(index:))
        self.readers = readers
        // Reversed: the first reader is taken first.
        self.state = Mutex(State(free: readers.reversed()))
        self.open = open
    }

    /// A read after ``close(then:)``: the store reports it as closed.
    struct Closed: Error {}

    /// Runs `body` with a read-only connection, off the cooperative pool.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let open = self.open
        return try await withCheckedThrowingContinuation { continuation in
            let job: Job = { reader in
                guard let reader else { return continuation.resume(throwing: Closed()) }
                reader.queue.async {
                    let result = Result<T, any Error> {
                        try reader.connection.withLock { connection in
                            if connection == nil {
                                guard !self.isClosed.load(ordering: .acquiring) else { throw Closed() }
                                connection = try open()
                            }
                            guard let connection else { throw Closed() }
                            return try body(connection)
                        }
                    }
                    self.release(reader)
                    continuation.resume(with: result)
                }
            }
            // After close, at once: not in line behind the reads still running.
            guard !isClosed.load(ordering: .acquiring) else { return job(nil) }
            let free = state.withLock { state -> Reader? in
                if let reader = state.free.popLast() { return reader }
                state.waiting.append(job)
                return nil
            }
            if let free { job(free) }
        }
    }

    /// `reader` finished a read: the longest-waiting read takes it, or it is free.
    private func release(_ reader: Reader) {
        let next = state.withLock { state -> Job? in
            guard !state.waiting.isEmpty else {
                state.free.append(reader)
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?(reader)
    }

    /// Closes every connection, after the queries already started, then calls `done` (on a
    /// global queue); reads still waiting for a connection, and later reads, throw ``Closed``.
    /// Blocks nothing: each reader's queue closes its own connection once its queries are done.
    func close(then done: @escaping @Sendable () -> Void) {
        isClosed.store(true, ordering: .releasing)
        // Reads still waiting for a connection fail now rather than after the reads under way.
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for job in waiting { job(nil) }
        let group = DispatchGroup()
        for reader in readers {
            reader.queue.async(group: group) {
                reader.connection.withLock { connection in
                    connection?.close()
                    connection = nil
                }
            }
        }
        group.notify(queue: .global(), execute: done)
    }
}
