extension LogStore {
    /// Sweeps the store now, whether or not it was opened with ``Options/sweep``: removes
    /// messages and tasks older than ``Configuration/maxAge``; when blobs take more than
    /// ``Configuration/blobSizeShare`` of ``Configuration/sizeLimit``, drops the bodies of the
    /// oldest tasks (their rows stay) until blobs are at ``Configuration/trimRatio`` of their
    /// share; when the data takes more than 85 % of the size limit, removes the oldest messages
    /// (and the tasks they describe) so about ``Configuration/trimRatio`` of them remain; removes blob
    /// files without rows; then gives free pages back to the file system and empties the WAL.
    ///
    /// Logging goes on meanwhile: the sweep deletes in small transactions and the writer commits
    /// logged events between them. When a sweep is already running, this waits for it and
    /// returns its report.
    ///
    /// ```swift
    /// let report = try await store.sweep()
    /// print("removed \(report.removedMessages) messages, reclaimed \(report.reclaimedBytes) bytes")
    /// ```
    ///
    /// - Returns: what was removed and reclaimed; also kept as ``Info/lastSweep``.
    /// - Throws: ``LogStoreError/readonly`` for a read-only store; ``LogStoreError/closed`` after ``close()``
    ///   (also when the store closes during the sweep, which stops between two steps, each
    ///   complete).
    @discardableResult
    public func sweep() async throws -> SweepReport {
        try await sweep(progress: nil)
    }

    /// Sweeps the store now, as ``sweep()`` does, telling `progress` how far it has got.
    ///
    /// ```swift
    /// try await store.sweep { progress in
    ///     print(progress.phase, progress.completed, progress.total ?? -1)
    /// }
    /// ```
    ///
    /// - Parameter progress: called at the start of each phase with work to do (orphan files
    ///   and empty sessions are always looked for, so always reported) and at most every 100 ms
    ///   within one (after a step, never per row), one call at a time, in order,
    ///   on a queue of its own (not the caller's task, and not the writer's thread: a slow
    ///   callback delays no logging, though keep it quick), and a last time with
    ///   ``SweepProgress/Phase/finished`` once the report is recorded; never after this method
    ///   returns or throws. When a sweep is already running (the schedule's, or another
    ///   caller's), this call waits for it and gets only the `finished` report. The counts and
    ///   totals of a phase are read only when a callback is given: `nil` costs nothing.
    /// - Returns: what was removed and reclaimed; also kept as ``Info/lastSweep``.
    /// - Throws: as ``sweep()``.
    @discardableResult
    public func sweep(progress: (@Sendable (SweepProgress) -> Void)?) async throws -> SweepReport {
        try checkWritable()
        guard let sweeper else { throw LogStoreError.readonly }
        do {
            return try await sweeper.sweep(.manual, progress: progress)
        } catch {
            throw core.reported(error)
        }
    }
}
