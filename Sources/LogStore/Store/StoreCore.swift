import Foundation
import Synchronization

/// Everything an open store holds that logging call sites reach without going through the
/// actor: the ingestion buffer and the writer. Sendable by construction (its parts are).
final class StoreCore: Sendable {
    let directory: URL
    let options: LogStore.Options
    let buffer: IngestBuffer
    /// `nil` for a read-only store.
    let writer: StoreWriter?
    /// `nil` when reads must go through the writer's connection (in-memory and unsafe stores,
    /// whose database other connections cannot open).
    let readers: ReaderPool?
    let minimumLevel: LogStore.Level
    let isSynchronous: Bool
    let manifest: Mutex<Manifest>
    /// Held while the store is open for writing (see ``StoreLock``).
    let lock: StoreLock?

    init(
        directory: URL, options: LogStore.Options, configuration: LogStore.Configuration,
        buffer: IngestBuffer, writer: StoreWriter?, readers: ReaderPool?, manifest: Manifest, lock: StoreLock? = nil
    ) {
        self.lock = lock
        self.directory = directory
        self.options = options
        self.buffer = buffer
        self.writer = writer
        self.readers = readers
        self.minimumLevel = configuration.minimumLevel
        self.isSynchronous = options.contains(.synchronous)
        self.manifest = Mutex(manifest)
    }

    /// Queues an event from a logging call site; never waits for I/O unless the store is
    /// `.synchronous` or its overflow policy is ``LogStore/OverflowPolicy/waitForSpace``, and never
    /// when called from the writer's own work (its `willHandleEvent` and `onWriteError` hooks).
    func ingest(_ event: LogStore.Event) {
        guard let writer else { return }
        while true {
            switch buffer.append(event) {
            case .accepted(let ticket, let wakeWriter):
                if isSynchronous {
                    writer.waitUntilCommitted(ticket)
                } else if wakeWriter {
                    writer.wakeUp()
                }
                return
            case .full:
                // Backpressure, chosen by the configuration; but a hook of the writer's logging
                // here would wait for itself: its event is dropped (counted) instead.
                guard !writer.threads.isCurrent else {
                    buffer.countDrop()
                    return
                }
                writer.waitForSpace()
            case .dropped, .closed:
                return
            }
        }
    }

    /// Runs a read on a reader connection, or on the writer's where readers cannot open one.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        if let readers {
            return try await readers.read(body)
        }
        guard let writer else { throw LogStore.Error.closed }
        return try await writer.perform { try body($0.connection) }
    }

    /// Runs a write on the writer thread.
    func write<T: Sendable>(_ body: @escaping @Sendable (BatchWriter) throws -> T) async throws -> T {
        guard let writer else { throw LogStore.Error.readonly }
        return try await writer.perform(body)
    }

    var databaseURL: URL { StoreFiles.databaseURL(in: directory) }
    var isInMemory: Bool { options.contains(.inMemory) }
}
