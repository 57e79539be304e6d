import Dispatch
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
    /// Whether closing should remove the WAL and shared-memory files: a read-only open that
    /// found neither makes SQLite create both, and the directory must be left as it was found.
    let removesWALFilesAtClose: Bool
    /// The one shutdown, once started: every `close()` (and `destroy()`, and the release of the
    /// store) waits for this same task and sees its result.
    private let shutdown = Mutex<Task<Result<Void, LogStore.Error>, Never>?>(nil)

    init(
        directory: URL, options: LogStore.Options, configuration: LogStore.Configuration,
        buffer: IngestBuffer, writer: StoreWriter?, readers: ReaderPool?, manifest: Manifest, lock: StoreLock? = nil,
        removesWALFilesAtClose: Bool = false
    ) {
        self.lock = lock
        self.removesWALFilesAtClose = removesWALFilesAtClose
        self.directory = directory
        self.options = options
        self.buffer = buffer
        self.writer = writer
        self.readers = readers
        self.minimumLevel = configuration.minimumLevel
        self.isSynchronous = options.contains(.synchronous)
        self.manifest = Mutex(manifest)
        if let writer { ExitDrain.register(writer) }
    }

    /// Queues an event from a logging call site; never waits for I/O unless the store is
    /// `.synchronous` or its overflow policy is ``LogStore/OverflowPolicy/waitForSpace``.
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
                // Backpressure, chosen by the configuration.
                writer.waitForSpace()
            case .dropped, .closed:
                return
            }
        }
    }

    /// Queues an event like ``ingest(_:)``, but where that blocks its thread (`.synchronous`,
    /// ``LogStore/OverflowPolicy/waitForSpace``) this suspends instead.
    func ingestSuspending(_ event: LogStore.Event) async {
        guard let writer else { return }
        while true {
            // Read before the append: a take between the append and the wait then ends the wait.
            let generation = writer.roomGeneration
            switch buffer.append(event) {
            case .accepted(let ticket, let wakeWriter):
                if isSynchronous {
                    do {
                        try await writer.waitUntilCommitted(upTo: ticket)
                    } catch {
                        // As with the blocking form: the event stays queued and is retried, and
                        // the failure reaches `onWriteError` and `info()`'s write-error count.
                    }
                } else if wakeWriter {
                    writer.wakeUp()
                }
                return
            case .full:
                await writer.waitForSpace(since: generation)
            case .dropped, .closed:
                return
            }
        }
    }

    // MARK: Closing

    /// Stops everything once: the readers, then the writer (which drains what was logged,
    /// checkpoints and closes its connection), then the lock. Concurrent and later callers wait
    /// for the same shutdown and get its result.
    func close() async -> Result<Void, LogStore.Error> {
        await startShutdown().value
    }

    /// Starts the shutdown without waiting for it: a store released without `close()`.
    func closeInBackground() {
        _ = startShutdown()
    }

    private func startShutdown() -> Task<Result<Void, LogStore.Error>, Never> {
        shutdown.withLock { shutdown in
            if let shutdown { return shutdown }
            // The task holds the core until the writer has stopped and the lock is released.
            let task = Task { await self.shutDown() }
            shutdown = task
            return task
        }
    }

    private func shutDown() async -> Result<Void, LogStore.Error> {
        await readers?.close()
        var result: Result<Void, LogStore.Error> = .success(())
        if let writer {
            do {
                try await writer.stop { writer in
                    // TRUNCATE leaves a zero-length WAL: the database file alone holds the store.
                    _ = try? writer.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    writer.connection.close()
                }
            } catch {
                result = .failure(error)
            }
            ExitDrain.unregister(writer)
        }
        lock?.release()
        if removesWALFilesAtClose {
            let directory = directory
            // It opens a connection and may touch files: not on the cooperative pool.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    StoreOpener.removeWALFilesIfUnused(directory: directory)
                    continuation.resume()
                }
            }
        }
        return result
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
