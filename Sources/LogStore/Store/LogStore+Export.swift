import Dispatch
public import Foundation

extension LogStore {
    /// Writes what `options` select to one file at `url`, in `format`: by default an archive that
    /// ``init(archiveURL:limits:configuration:)`` opens again.
    ///
    /// ```swift
    /// let report = try await store.export(to: URL(fileURLWithPath: "/tmp/incident.lsarchive"))
    /// let text = try await store.export(
    ///     to: URL(fileURLWithPath: "/tmp/errors.log"), format: .text,
    ///     options: ExportOptions(messages: MessageQuery(levels: .error ... .critical)))
    /// ```
    ///
    /// The export reads one consistent snapshot while the store keeps logging, and streams: its
    /// memory stays bounded whatever the store's size. It writes a temporary file beside `url`
    /// and gives it the name only when complete, so `url` never holds half a file; a failed or
    /// cancelled export leaves nothing, and what a killed one left beside its target goes with the
    /// next export into that directory. Nothing is un-redacted: what the store redacted when it
    /// recorded it stays redacted. An archive opened with ``init(archiveURL:limits:configuration:)`` exports
    /// too (to another format, or filtered to a smaller archive).
    ///
    /// - Parameters:
    ///   - url: the file to create; its directory must exist and the file must not, unless
    ///     ``ExportOptions/replacesExistingFile`` says to replace it (atomically, once the new
    ///     file is complete).
    ///   - format: ``ExportFormat/archive`` by default.
    ///   - options: what to include; everything by default.
    ///   - progress: called as the export advances (at most every 100 ms, and at each new phase),
    ///     one call at a time, from the threads doing the work (not the caller's), and a last time
    ///     with ``ExportProgress/Phase/finished`` once the file is in place (never after a failure
    ///     or a cancellation). Keep it quick.
    /// - Returns: what was written.
    /// - Throws: ``LogStoreError/fileAlreadyExists(_:)`` when `url` exists (nothing is overwritten)
    ///   and `options` do not replace it, or when it is a directory;
    ///   ``LogStoreError/fileDoesntExist(_:)`` when its directory does not;
    ///   ``LogStoreError/fileSystem(_:operation:errno:)`` when writing fails (a full disk);
    ///   `CancellationError` when the calling task is cancelled; ``LogStoreError/closed`` after
    ///   ``close()``; ``LogStoreError/invalidArgument(_:)`` for a query the store rejects.
    @discardableResult  // the file is what most callers want; the report, like sweep()'s, is extra
    public func export(
        to url: URL, format: ExportFormat = .archive, options: ExportOptions = ExportOptions(),
        progress: (@Sendable (ExportProgress) -> Void)? = nil
    ) async throws -> ExportReport {
        try checkOpen()
        // close() waits for exports in progress: an archive's second phase runs off the readers.
        try core.beginWork()
        defer { core.endWork() }
        let started = ContinuousClock.now
        let reporter = ExportProgressReporter(progress)
        // File work (a listing of the target's directory, a lock per leftover) off the pool.
        let destination = try await Self.offCooperativeThreads { try ExportDestination(target: url, replaces: options.replacesExistingFile) }
        // Whatever happens, no temporary file outlives the call (commit removes them too).
        defer { destination.discard() }
        let written: (counts: ExportCounts, byteCount: Int64, storeID: UUID?)
        switch format {
        case .archive:
            let files = core.blobFiles
            let storeID = core.manifest.withLock { $0.storeId }
            written = try await withTaskCancellationHandler {
                let scratch = try destination.makeCompanionFile("database")
                // The store's connection only for the copy; the rest runs away from it (for an
                // in-memory store that connection is the writer's: logging waits meanwhile).
                try await core.read { connection in
                    try ArchiveWriter.copySnapshot(
                        from: connection, options: options, to: scratch, destination: destination, progress: reporter)
                }
                return try await Self.offCooperativeThreads {
                    let info = try ArchiveWriter.write(
                        snapshot: scratch, files: files, storeID: storeID, to: destination, progress: reporter)
                    try destination.commit()
                    let counts = ExportCounts(
                        messages: info.messageCount, tasks: info.taskCount, blobs: info.blobCount,
                        sessions: info.sessions.count)
                    return (counts, destination.committedSize, info.storeID)
                }
            } onCancel: {
                reporter.cancel()
            }
        case .text, .ndjson, .html, .har:
            let readBody = bodyReader(forgivingRemovedFiles: true)
            written = try await withTaskCancellationHandler {
                try await core.read { connection in
                    let counts = try reporter.interruptible(connection) {
                        try connection.transaction(.deferred) {
                            let source = ExportSource(connection: connection, options: options, readBody: readBody)
                            reporter.setTotal(Int64(try source.messageCount() + source.taskCount()))
                            return try destination.withOutput { output in
                                try Self.writeStreaming(format, source: source, output: output, progress: reporter)
                            }
                        }
                    }
                    try destination.commit()
                    return (counts, destination.committedSize, nil)
                }
            } onCancel: {
                reporter.cancel()
            }
        }
        reporter.finish()
        return ExportReport(
            url: url, format: format, messageCount: written.counts.messages, taskCount: written.counts.tasks,
            blobCount: written.counts.blobs, sessionCount: written.counts.sessions, byteCount: written.byteCount,
            duration: ContinuousClock.now - started, storeID: written.storeID)
    }

    private static func writeStreaming(
        _ format: ExportFormat, source: ExportSource, output: ExportOutput, progress: ExportProgressReporter
    ) throws -> ExportCounts {
        switch format {
        case .text: try TextExport.write(source, to: output, progress: progress)
        case .ndjson: try NDJSONExport.write(source, to: output, progress: progress)
        case .html: try HTMLExport.write(source, to: output, progress: progress)
        case .har: try HARExport.write(source, to: output, progress: progress)
        case .archive: throw LogStoreError.unexpected("an archive is not a streaming format")
        }
    }

    /// How ``blobData(forKey:)`` and exports read a body. For an export (`forgivingRemovedFiles`),
    /// a body whose file a sweep removed after the export's snapshot is `nil` (no longer stored),
    /// as it would be after that sweep; a damaged one is still an error.
    nonisolated func bodyReader(forgivingRemovedFiles: Bool = false) -> @Sendable (String, Connection) throws -> Data? {
        let files = core.blobFiles
        let location = storeURL
        let limit = max(configuration.bodySizeLimit, 1)
        return { key, connection in
            do {
                return try BlobRows.body(forKey: key, connection: connection, files: files, location: location, maxSize: limit)
            } catch let error as LogStoreError {
                if forgivingRemovedFiles, error.kind == .storeInvalid, let digest = SHA1.Digest(hex: key),
                    files?.isMissing(digest) == true
                {
                    return nil
                }
                throw error
            }
        }
    }

    /// Runs `work` on a global queue: long file work must not hold one of Swift's few
    /// cooperative threads.
    /// Errors come out as the store reports them (no `DatabaseError` escapes).
    static func offCooperativeThreads<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let handover = ThreadHandover()
        let value = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let result = Result { try work() }.mapError { StoreCore.reported($0) }
                handover.publish()
                continuation.resume(with: result)
            }
        }
        handover.receive()
        return value
    }
}
