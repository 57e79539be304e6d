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
    /// Whether ``writer`` is there, read by every logging call instead of ``writer``: the writer
    /// is weakly referenced (``ExitDrain``), so each retain of it takes the runtime's slow,
    /// side-table path on a cache line every producer thread shares (~12 % of a call's time).
    let isWritable: Bool
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
    /// What wakes live tails: the writer's commits, and the watch's for other processes'.
    let commits: CommitSignal
    /// Polls for other processes' commits while tails run; `nil` where no other connection
    /// can open the database (in memory, unsafe).
    let commitWatch: DataVersionWatch?
    /// The archive this store reads (``LogStore/init(archiveURL:limits:)``), with the private
    /// directory its database was extracted into; both go at close.
    let archive: OpenedArchive?
    /// Long work that uses the store's files without holding a reader (an archive export's
    /// second phase): `close()` waits for it.
    private let work = DispatchGroup()
    /// The one shutdown: every `close()` (and `destroy()`, and the release of the store) waits
    /// for it and gets its result.
    private let shutdown = Mutex<Shutdown>(.notStarted)

    private enum Shutdown {
        case notStarted
        case running(waiters: [@Sendable (Result<Void, LogStoreError>) -> Void])
        case finished(Result<Void, LogStoreError>)
    }

    init(
        directory: URL, options: LogStore.Options, configuration: LogStore.Configuration,
        buffer: IngestBuffer, writer: StoreWriter?, readers: ReaderPool?, manifest: Manifest, lock: StoreLock? = nil,
        removesWALFilesAtClose: Bool = false, archive: OpenedArchive? = nil
    ) {
        self.archive = archive
        self.lock = lock
        self.removesWALFilesAtClose = removesWALFilesAtClose
        self.directory = directory
        self.options = options
        self.buffer = buffer
        self.writer = writer
        self.isWritable = writer != nil
        self.readers = readers
        let commits = writer?.commits ?? CommitSignal()
        self.commits = commits
        // An archive never changes: nothing to watch.
        self.commitWatch = archive == nil ? readers.map { DataVersionWatch(signal: commits, open: $0.open) } : nil
        self.minimumLevel = configuration.minimumLevel
        self.isSynchronous = options.contains(.synchronous)
        self.manifest = Mutex(manifest)
        // An in-memory store ends with the process anyway: nothing to commit at exit.
        if let writer, !options.contains(.inMemory) { ExitDrain.register(writer) }
    }

    /// Queues an event from a logging call site; never waits for I/O unless the store is
    /// `.synchronous` or its overflow policy is ``LogStore/OverflowPolicy/waitForSpace``, and never
    /// when called from the writer's own work (its `willHandleEvent` and `onWriteError` hooks).
    func ingest(_ event: LogStore.Event) {
        ingest(event, level: event.level, size: event.estimatedSize)
    }

    /// ``ingest(_:)`` of an event whose ``LogStore/Event/level`` and
    /// ``LogStore/Event/estimatedSize`` the caller knows (a logging call, from its arguments).
    func ingest(_ event: LogStore.Event, level: LogStore.Level, size: Int) {
        guard isWritable else { return }
        while true {
            switch buffer.append(event, level: level, size: size) {
            case .accepted(let ticket, let wakeWriter, let prepareNext):
                // The writer is touched only when it must act (see ``isWritable``).
                if isSynchronous {
                    writer?.waitUntilCommitted(ticket)
                } else if wakeWriter {
                    writer?.wakeUp()
                } else if prepareNext {
                    writer?.prepareNextWhileCommitting()
                }
                return
            case .full:
                guard let writer else { return }
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

    /// Queues an event like ``ingest(_:)``, but where that blocks its thread (`.synchronous`,
    /// ``LogStore/OverflowPolicy/waitForSpace``) this suspends instead.
    func ingestSuspending(_ event: LogStore.Event) async {
        guard let writer else { return }
        while true {
            // Read before the append: a take between the append and the wait then ends the wait.
            let generation = writer.roomGeneration
            switch buffer.append(event) {
            case .accepted(let ticket, let wakeWriter, let prepareNext):
                if isSynchronous {
                    do {
                        try await writer.waitUntilCommitted(upTo: ticket)
                    } catch {
                        // As with the blocking form: the event stays queued and is retried, and
                        // the failure reaches `onWriteError` and `info()`'s write-error count.
                    }
                } else if wakeWriter {
                    writer.wakeUp()
                } else if prepareNext {
                    writer.prepareNextWhileCommitting()
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

    /// Registers work `close()` must wait for; ``endWork()`` when it is done.
    ///
    /// - Throws: ``LogStoreError/closed`` once the shutdown has started.
    func beginWork() throws {
        try shutdown.withLock { shutdown in
            guard case .notStarted = shutdown else { throw LogStoreError.closed }
            work.enter()
        }
    }

    func endWork() {
        work.leave()
    }

    /// Stops everything once: the readers, then the writer (which drains what was logged,
    /// checkpoints and closes its connection), then the lock. Concurrent and later callers wait
    /// for the same shutdown and get its result.
    func close() async -> Result<Void, LogStoreError> {
        await withCheckedContinuation { continuation in
            close { continuation.resume(returning: $0) }
        }
    }

    /// Starts the shutdown without waiting for it: a store released without `close()`.
    func closeInBackground() {
        close { _ in }
    }

    /// Starts the shutdown unless it has started, and calls `done` with its result once it is
    /// over. It runs on the reader queues and the writer thread, never on Swift's cooperative
    /// pool, so a busy pool cannot hold up a released store's cleanup.
    private func close(then done: @escaping @Sendable (Result<Void, LogStoreError>) -> Void) {
        enum Next { case start, wait, report(Result<Void, LogStoreError>) }
        let next = shutdown.withLock { shutdown -> Next in
            switch shutdown {
            case .notStarted:
                shutdown = .running(waiters: [done])
                return .start
            case .running(var waiters):
                waiters.append(done)
                shutdown = .running(waiters: waiters)
                return .wait
            case .finished(let result):
                return .report(result)
            }
        }
        switch next {
        case .start:
            // Live tails end now: their reads would fail once the readers close.
            commitWatch?.close()
            commits.finish()
            // Work that runs off the readers (an export's compression) finishes first; the
            // closures hold the core until the shutdown is over. Without any, the readers close
            // now: calls from then on throw `closed` at once, as callers of close() expect.
            let closeReaders = {
                if let readers = self.readers {
                    readers.close { self.stopWriter() }
                } else {
                    self.stopWriter()
                }
            }
            if work.wait(timeout: .now()) == .success {
                closeReaders()
            } else {
                work.notify(queue: .global(), execute: closeReaders)
            }
        case .wait:
            break
        case .report(let result):
            done(result)
        }
    }

    private func stopWriter() {
        guard let writer else { return finishShutdown(.success(())) }
        let checkpoint = ErrorSlot()
        writer.stop(
            finally: { writer in
                // TRUNCATE leaves a zero-length WAL: the database file alone holds the store.
                // A failure (an I/O error) is reported after any commit failure; the next open
                // replays the WAL.
                checkpoint.capture { () throws(DatabaseError) in
                    try writer.checkpoint(.truncate)
                }
                writer.close()
            },
            then: { error in
                ExitDrain.unregister(writer)
                if let error { return self.finishShutdown(.failure(error)) }
                self.finishShutdown(checkpoint.error.map { .failure(.database($0)) } ?? .success(()))
            })
    }

    /// Runs on the writer thread as it ends, or (read-only) on a global queue.
    private func finishShutdown(_ result: Result<Void, LogStoreError>) {
        lock?.release()
        archive?.close()
        if removesWALFilesAtClose { StoreOpener.removeWALFilesIfUnused(directory: directory) }
        let waiters = shutdown.withLock { shutdown -> [@Sendable (Result<Void, LogStoreError>) -> Void] in
            defer { shutdown = .finished(result) }
            guard case .running(let waiters) = shutdown else { return [] }
            return waiters
        }
        for waiter in waiters { waiter(result) }
    }

    /// Runs a read on a reader connection, or on the writer's where readers cannot open one.
    ///
    /// - Throws: SQLite's failures as ``LogStoreError/database(_:)``, a closed pool as
    ///   ``LogStoreError/closed``; an error `body` throws of its own passes as it is.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        do {
            if let readers {
                return try await readers.read(body)
            }
            guard let writer else { throw LogStoreError.closed }
            return try await writer.perform { try body($0.connection) }
        } catch {
            throw reported(error)
        }
    }

    /// Runs a write on the writer thread.
    ///
    /// - Throws: SQLite's failures as ``LogStoreError/database(_:)``; an error `body` throws of
    ///   its own passes as it is.
    func write<T: Sendable>(_ body: @escaping @Sendable (BatchWriter) throws -> T) async throws -> T {
        guard let writer else { throw LogStoreError.readonly }
        do {
            return try await writer.perform(body)
        } catch {
            throw reported(error)
        }
    }

    /// An error from below the store's API as the store reports it, so no `DatabaseError` or
    /// internal error escapes a store's method; any other error (a caller's own) passes as it is.
    static func reported(_ error: any Error) -> any Error {
        LogStoreError(known: error) ?? error
    }

    /// ``reported(_:)``, with damage met while reading or writing (`SQLITE_CORRUPT`,
    /// `SQLITE_NOTADB`, a damaged full-text index) as ``LogStoreError/storeInvalid(_:reason:)``
    /// naming this store, or the archive it was opened from: the file is at fault, not the call.
    func reported(_ error: any Error) -> any Error {
        // SQLite's error as it was thrown, or inside the store's `database` error.
        let database = error as? DatabaseError
            ?? (error as? LogStoreError).flatMap { $0.kind == .database ? $0.databaseError : nil }
        let message: String
        let cause: any Error
        if let database, database.isCorrupt {
            (message, cause) = ("the database is damaged (\(database.message))", database)
        } else if let damage = error as? SearchFailure.DamagedIndex {
            (message, cause) = ("its full-text index is damaged (\(damage.message))", damage)
        } else {
            return Self.reported(error)
        }
        if let archive { return LogStoreError.storeInvalid(archive.file.url, reason: message, cause: cause) }
        return LogStoreError.storeInvalid(
            directory, reason: "\(message). Open it read-only to read what it holds, and move it aside to start a new store",
            cause: cause)
    }

    var databaseURL: URL { StoreFiles.databaseURL(in: directory) }
    /// Where the bodies kept outside the database are: `blobs/` (none in memory).
    var blobFiles: (any StoredBlobFiles)? {
        if let archive { return archive.file }
        return isInMemory ? nil : BlobDirectory(directory: directory)
    }
    var isInMemory: Bool { options.contains(.inMemory) }
}
