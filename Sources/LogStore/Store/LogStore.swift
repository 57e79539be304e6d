import Dispatch
public import Foundation

/// A persistent store of logs on SQLite, safe to log into from any thread.
///
/// ```swift
/// let store = try await LogStore(storeURL: URL(fileURLWithPath: "/var/log/my-app.logstore"))
/// store.storeMessage(label: "http", level: .info, message: "GET /health 200", metadata: ["ms": "3"])
/// try await store.flush()
/// let page = try await store.messages(MessageQuery(levels: .warning ... .critical, limit: 50))
/// ```
///
/// Logging calls (``storeMessage(createdAt:label:level:message:metadata:file:function:line:)``)
/// are `nonisolated` and never wait for disk: they append to a bounded in-memory buffer that
/// one writer thread commits in batches. Everything else is `async` on the actor.
public actor LogStore {
    /// The store directory (for an in-memory store, the URL it was given).
    public nonisolated let storeURL: URL
    /// How the store was opened.
    public nonisolated let options: Options
    /// The tunables the store was opened with.
    public nonisolated let configuration: Configuration
    /// The session of this process: written at open (not for a read-only store).
    public nonisolated let session: Session

    /// What the archive holds, for a store opened with ``init(archiveURL:limits:configuration:)``; `nil` otherwise.
    public nonisolated let archiveInfo: ArchiveInfo?

    nonisolated let core: StoreCore
    /// `nil` for a read-only store.
    nonisolated let sweeper: Sweeper?
    /// The current author's consumption of history; `nil` without a history configuration or
    /// for a read-only store.
    nonisolated let historyMerger: HistoryMerger?
    private var lifecycle: Lifecycle = .open

    /// Where the store is in its life. Every method that suspends re-checks it afterwards: a
    /// `close()` or `destroy()` from another task may have moved it on meanwhile.
    private enum Lifecycle {
        case open
        /// `close()` started the shutdown (``StoreCore/close()``); every caller waits for it.
        case closing
        case closed
        /// `destroy()` started: it closes, then deletes; later `destroy()` calls wait for it.
        case destroying(Task<Void, any Swift.Error>)
        case destroyed
    }

    /// Opens the store at `storeURL`, creating it when `options` has `.create`.
    ///
    /// Other processes may have the store open at the same time, and so may other instances in
    /// this process (a writer and a read-only viewer, or a new instance while an earlier one
    /// closes): each writing instance is a writer of its own, and SQLite's locks arbitrate (see
    /// the on-disk format article, "Several processes, several connections").
    ///
    /// - Parameters:
    ///   - storeURL: the store directory (`*.logstore` by convention).
    ///   - options: default `[.create, .sweep]`.
    ///   - configuration: tunables; see ``Configuration``.
    /// - Throws: ``LogStoreError/fileDoesntExist(_:)`` without `.create`; ``LogStoreError/storeInvalid(_:reason:)``
    ///   for a directory that is not a store or a damaged database;
    ///   ``LogStoreError/unsupportedVersion(found:supported:)`` for a store from a newer library (left
    ///   untouched); ``LogStoreError/fileSystem(_:operation:errno:)`` when files cannot be created.
    public init(
        storeURL: URL, options: Options = [.create, .sweep], configuration: Configuration = Configuration()
    ) async throws {
        self.storeURL = storeURL
        self.options = options
        self.configuration = configuration
        // Opening reads files and runs SQL: keep it off Swift's cooperative threads.
        let handover = ThreadHandover()
        let opened = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let result = Result {
                    try StoreOpener.open(directory: storeURL, options: options, configuration: configuration)
                }
                handover.publish()
                continuation.resume(with: result)
            }
        }
        handover.receive()
        self.core = opened.core
        self.session = opened.session
        self.archiveInfo = nil
        if let writer = opened.core.writer {
            let sweeper = Sweeper(store: opened.core, writer: writer, configuration: configuration)
            self.sweeper = sweeper
            if options.contains(.sweep) {
                writer.watchSize(limit: configuration.sizeSweepThreshold) { [weak sweeper] in sweeper?.requestSizeSweep() }
                sweeper.startSchedule()
            }
            if let history = configuration.history, let authorID = opened.historyAuthorID {
                self.historyMerger = HistoryMerger(
                    configuration: history, authorID: authorID, core: opened.core, writer: writer,
                    timeSource: configuration.timeSource, reportError: configuration.onWriteError)
            } else {
                self.historyMerger = nil
            }
        } else {
            self.sweeper = nil
            self.historyMerger = nil
        }
    }

    /// Opens an archive (``ExportFormat/archive``) read-only, with the whole query and search API:
    /// messages, tasks with their bodies, sessions, summaries, `info()`, a tail (which ends once it
    /// has read the archive) and export (to another format, or filtered to a smaller archive).
    ///
    /// ```swift
    /// let archive = try await LogStore(archiveURL: URL(fileURLWithPath: "incident.lsarchive"))
    /// let errors = try await archive.messages(MessageQuery(levels: .error ... .critical))
    /// try await archive.close()  // removes what was extracted
    /// ```
    ///
    /// The archive is trusted in nothing: it is checked before use (its structure, its info record
    /// against its rows and `limits`, every chunk against its checksum, the database's schema
    /// against this library's) and read defensively, so a damaged or crafted file gives an error,
    /// never a crash, unbounded memory or a write outside the extraction directory. Its database is
    /// extracted into a private temporary directory (in `TMPDIR`, mode 0700) removed at `close()`,
    /// or by the next open after a crash; bodies are read from the archive when asked for.
    ///
    /// - Parameters:
    ///   - archiveURL: the archive file.
    ///   - limits: bounds on what opening may cost; see ``ArchiveLimits``.
    ///   - configuration: tunables for reading (``Configuration/bodySizeLimit`` bounds the bodies read).
    /// - Throws: ``LogStoreError/fileDoesntExist(_:)``; ``LogStoreError/storeInvalid(_:reason:)`` for a file
    ///   that is not an archive, is damaged or exceeds `limits`; ``LogStoreError/unsupportedVersion(found:supported:)``
    ///   for an archive of a newer format or schema; ``LogStoreError/fileSystem(_:operation:errno:)`` when
    ///   extracting fails (`ENOSPC` when the temporary volume lacks room).
    public init(archiveURL: URL, limits: ArchiveLimits = ArchiveLimits(), configuration: Configuration = Configuration()) async throws {
        let handover = ThreadHandover()
        let opened = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let result = Result { try ArchiveOpener.open(archiveURL, limits: limits, configuration: configuration) }
                handover.publish()
                continuation.resume(with: result)
            }
        }
        handover.receive()
        self.storeURL = archiveURL
        self.options = .readonly
        self.configuration = configuration
        self.core = opened.core
        self.session = opened.session
        self.archiveInfo = opened.core.archive?.file.info
        self.sweeper = nil
        self.historyMerger = nil
    }

    /// Every event committed from now on (messages, and network events once those land), for
    /// live consumers. Each call makes a new, independent stream; it ends when the store
    /// closes. Events arrive after `willHandleEvent`, so they are redacted like the store.
    ///
    /// Each stream buffers up to ``eventSubscriberBufferLimit`` events it has not consumed yet;
    /// past that the oldest are dropped (counted in ``Info/droppedSubscriberEventCount``), so a
    /// slow consumer never holds the writer or unbounded memory.
    public nonisolated func subscribeEvents() -> AsyncStream<Event> {
        guard let writer = core.writer else { return AsyncStream { $0.finish() } }
        return writer.broadcaster.subscribe()
    }

    /// How many events each ``subscribeEvents()`` stream buffers for a consumer that has not taken them
    /// yet: 10,000. Past it, the oldest are dropped and counted.
    public static let eventSubscriberBufferLimit = 10_000

    /// Returns when every event logged before the call is committed to the database.
    ///
    /// - Throws: ``LogStoreError/writeFailed(_:)`` when committing them failed (they stay queued and are
    ///   retried), and from then on when the database was found damaged (its cause is then
    ///   ``LogStoreError/storeInvalid(_:reason:)``: nothing more is written, and what is logged is
    ///   counted as dropped); ``LogStoreError/closed`` after ``close()``.
    public func flush() async throws {
        try checkOpen()
        guard let writer = core.writer else { return }
        try await writer.flush()
    }

    /// Drains what was logged, checkpoints the WAL into the database and closes every
    /// connection. Later calls throw ``LogStoreError/closed``; logging calls are ignored.
    ///
    /// Concurrent and later calls wait for the same drain and return (or throw) its result. A
    /// store released without `close()` closes itself in the background; at a normal process
    /// exit, what every open store has queued is committed (within about a second and a half).
    ///
    /// - Throws: ``LogStoreError/writeFailed(_:)`` when logged events could not be committed.
    public func close() async throws {
        if case .open = lifecycle { lifecycle = .closing }
        Self.stopSharing(self)
        let result = await Self.shutDown(core, sweeper, historyMerger)
        // Re-checked after the suspension: a destroy() that began meanwhile keeps its state.
        if case .closing = lifecycle { lifecycle = .closed }
        try result.get()
    }

    /// Closes the store and deletes its directory. Every later call throws ``LogStoreError/closed``.
    ///
    /// It waits for a `close()` in progress to drain before deleting anything; concurrent
    /// calls wait for the same deletion.
    ///
    /// - Throws: ``LogStoreError/fileSystem(_:operation:errno:)`` when the directory could not be
    ///   deleted (then calling it again tries again).
    public func destroy() async throws {
        switch lifecycle {
        case .destroyed:
            return
        case .destroying(let task):
            return try await task.value
        case .open, .closing, .closed:
            break
        }
        Self.stopSharing(self)
        let task = Task { [core, sweeper, historyMerger, storeURL, options] in
            // The files go either way; a commit failure does not matter any more.
            _ = await Self.shutDown(core, sweeper, historyMerger)
            guard !options.contains(.inMemory), Files.exists(storeURL) else { return }
            try await Self.removeDirectory(storeURL)
        }
        lifecycle = .destroying(task)
        do {
            try await task.value
            lifecycle = .destroyed
        } catch {
            // Partly deleted at worst: the store stays closed, and destroy() may be retried.
            lifecycle = .closed
            throw error
        }
    }

    deinit {
        // Released without close(): the writer would otherwise run, and hold the lock and the
        // files open, until the process ends. What was logged is still committed.
        sweeper?.stopSchedule()
        historyMerger?.closeInBackground()
        core.closeInBackground()
    }

    /// The shutdown both `close()` and `destroy()` wait for: the schedule stops, the core
    /// drains and closes (once, whoever asks first), and a sweep in progress ends.
    private static func shutDown(
        _ core: StoreCore, _ sweeper: Sweeper?, _ historyMerger: HistoryMerger?
    ) async -> Result<Void, LogStoreError> {
        sweeper?.stopSchedule()
        // Before the writer stops: a merge in progress finishes its cursor's write, or stops.
        await historyMerger?.close()
        let result = await core.close()
        // A sweep in progress ends at its next step once the writer stops; wait for it, so it
        // writes nothing (its report) after close() returns.
        await sweeper?.waitUntilIdle()
        return result
    }

    /// Deletes the store directory off the cooperative pool (it may hold many body files).
    private static func removeDirectory(_ url: URL) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Swift.Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    do {
                        try FileManager.default.removeItem(at: url)
                    } catch {
                        throw LogStoreError.fileSystem(url, operation: "delete", errno: Files.errno(of: error))
                    }
                })
            }
        }
    }

    func checkOpen() throws {
        guard case .open = lifecycle else { throw LogStoreError.closed }
    }

    func checkWritable() throws {
        try checkOpen()
        guard !options.contains(.readonly) else { throw LogStoreError.readonly }
    }
}
