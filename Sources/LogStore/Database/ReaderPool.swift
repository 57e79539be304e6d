import Dispatch
import Synchronization

/// Read-only connections, each confined to its own serial queue, so queries run beside the
/// writer (WAL) and never on Swift's cooperative threads.
///
/// Connections open lazily: opening a store must stay fast, and many stores are written far
/// more than they are read.
final class ReaderPool: Sendable {
    private let readers: [Reader]
    private let next = Atomic<Int>(0)
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

    /// Opens one read-only connection like the pool's (the live tail's watch keeps its own).
    let open: @Sendable () throws -> Connection

    /// - Parameters:
    ///   - count: how many connections (and queries running at once) at most.
    ///   - open: opens one read-only connection.
    init(count: Int, open: @escaping @Sendable () throws -> Connection) {
        self.readers = (0..<max(1, count)).map(Reader.init(index:))
        self.open = open
    }

    /// A read after ``close(then:)``: the store reports it as closed.
    struct Closed: Error {}

    /// Runs `body` with a read-only connection, off the cooperative pool.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count
        let reader = readers[index]
        let open = self.open
        return try await withCheckedThrowingContinuation { continuation in
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
                continuation.resume(with: result)
            }
        }
    }

    /// Closes every connection, after the queries already started, then calls `done` (on a
    /// global queue); later reads throw ``Closed``. Blocks nothing: each reader's
    /// queue closes its own connection once its queries are done.
    func close(then done: @escaping @Sendable () -> Void) {
        isClosed.store(true, ordering: .releasing)
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
