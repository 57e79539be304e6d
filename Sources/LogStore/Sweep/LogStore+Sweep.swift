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
        try checkWritable()
        guard let sweeper else { throw LogStoreError.readonly }
        do {
            return try await sweeper.sweep(.manual)
        } catch {
            throw StoreCore.reported(error)
        }
    }
}
