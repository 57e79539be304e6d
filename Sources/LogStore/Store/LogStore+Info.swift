public import Foundation

extension LogStore {
    /// What a store holds and how it is doing, from ``LogStore/info()``.
    public struct Info: Sendable, Encodable {
        /// The store's identity (kept across reopenings; new for every exported archive).
        public var storeID: UUID
        /// The store format version from the manifest.
        public var storeVersion: Version
        /// The SQL schema version (`PRAGMA user_version` n as `n.0.0`).
        public var schemaVersion: Version
        /// The version of the library reading it.
        public var libraryVersion: Version
        /// When the store was created.
        public var creationDate: Date
        /// When its database was last modified.
        public var modifiedDate: Date
        /// Logged messages (the technical messages of network tasks are not counted).
        public var messageCount: Int
        /// Network tasks.
        public var taskCount: Int
        /// Distinct stored bodies.
        public var blobCount: Int
        /// Bytes on disk: database, WAL and blob files.
        public var totalStoreSize: Int64
        /// Bytes of the database file and its WAL.
        public var databaseSize: Int64
        /// Bytes of blobs as stored (compressed where that was smaller), inline ones included:
        /// those are inside ``databaseSize`` too.
        public var blobsSize: Int64
        /// Bytes of the body files in `blobs/` (the blobs too large to be inline).
        /// ``totalStoreSize`` is ``databaseSize`` plus this.
        public var blobFilesSize: Int64 = 0
        /// Bytes of blobs once decompressed.
        public var blobsDecompressedSize: Int64
        /// Sessions in the store.
        public var sessionCount: Int
        /// The session of this process (`nil` for a read-only store, which writes none).
        public var currentSession: Session?
        /// Events logged and not yet committed right now: waiting, being committed, or kept
        /// for a retry after a failed commit. At most ``Configuration/maxPendingEvents``.
        public var pendingEventCount: Int
        /// The estimated bytes of ``pendingEventCount``'s events. At most
        /// ``Configuration/maxPendingBytes`` (unless one larger event waits alone).
        public var pendingEventBytes: Int = 0
        /// Events dropped since the store was opened because the ingestion buffer was full
        /// (``Configuration/maxPendingEvents`` or ``Configuration/maxPendingBytes``), also while
        /// commits were failing.
        public var droppedEventCount: Int
        /// Committed messages the full-text index has not reached yet (searches still find them:
        /// see ``Configuration/isSearchIndexEnabled``); 0 once it has caught up.
        public var unindexedMessageCount: Int = 0
        /// Events set aside since the store was opened because committing them failed on their
        /// own, while the rest of their batch committed (a body that could not be written, a
        /// value SQLite refused): they are not retried. Each was reported to
        /// ``Configuration/onWriteError`` and counts in ``writeErrorCount``.
        public var rejectedEventCount: Int = 0
        /// Body files that could not be deleted since the store was opened (after their last
        /// link went, or after a rolled-back batch). The sweep deletes them later, once it can.
        public var blobDeletionFailureCount: Int = 0
        /// Events dropped since the store was opened from the buffers of ``LogStore/subscribeEvents()``
        /// subscribers that did not keep up (the oldest go first, past
        /// ``LogStore/eventSubscriberBufferLimit`` events per subscriber).
        public var droppedSubscriberEventCount: Int = 0
        /// Failed attempts to commit logged events since the store was opened.
        public var writeErrorCount: Int
        /// The most recent commit failure, when there was one (in JSON: its kind and description).
        public var lastWriteError: LogStoreError?
        /// Rows the size limit deleted before a history consumer had read them, summed over the
        /// consumers (``HistoryConfiguration``) and entities (messages and tasks): the size sweep
        /// is never held back, and counts what each one lost until its next read reports it.
        /// 0 without history.
        public var historyGapCount: Int = 0
        /// The store's shippers (``LogShipper``), whichever process runs them: what each has
        /// sent, its failures and how far behind it is. Empty when none ever ran.
        public var shippers: [ShipperStatus] = []
        /// When the store was last swept.
        public var lastSweepDate: Date?
        /// What the last sweep removed and reclaimed (nil before the first recorded sweep).
        public var lastSweep: SweepReport?
    }
}

extension LogStore.Info {}

extension LogStore {
    /// What the store holds and how it is doing.
    ///
    /// Counts come from committed rows: call ``flush()`` first to include what was just logged.
    /// When ``Info/pendingEventCount`` is 0, the counts include every event logged before the
    /// call (stored, or counted as dropped or set aside).
    public func info() async throws -> Info {
        try checkOpen()
        // The buffer is read before the rows: an event no longer pending by then has committed
        // (or been dropped or set aside, all counted), so "nothing pending" means the counts
        // include everything logged before this call. Read after the rows, a commit landing in
        // between showed nothing pending beside rows that did not hold it yet.
        let pending = (events: core.buffer.pendingCount, bytes: core.buffer.pendingBytes)
        let dropped = Int(core.buffer.droppedCount)
        let writeErrors = core.writer?.writeErrors
        let setAside = core.writer?.setAsideCounts
        let (counts, shippers) = try await core.read { connection in
            (try StoreCounts(connection: connection), try ShipperStatusRows.all(on: connection))
        }
        let manifest = core.manifest.withLock { $0 }
        let databaseURL = core.databaseURL
        let databaseSize = core.isInMemory
            ? counts.pageBytes
            : Files.fileSize(databaseURL) + Files.fileSize(StoreFiles.walURL(in: core.directory))
        return Info(
            storeID: manifest.storeId,
            storeVersion: manifest.version,
            schemaVersion: .schema(counts.schemaVersion),
            libraryVersion: .library,
            creationDate: manifest.creationDate,
            modifiedDate: Files.modificationDate(databaseURL) ?? manifest.creationDate,
            messageCount: counts.messages,
            taskCount: counts.tasks,
            blobCount: counts.blobs,
            totalStoreSize: databaseSize + counts.blobFileBytes,
            databaseSize: databaseSize,
            blobsSize: counts.blobBytes,
            blobFilesSize: counts.blobFileBytes,
            blobsDecompressedSize: counts.blobDecompressedBytes,
            sessionCount: counts.sessions,
            currentSession: core.writer == nil ? nil : session,
            pendingEventCount: pending.events,
            pendingEventBytes: pending.bytes,
            droppedEventCount: dropped,
            unindexedMessageCount: counts.unindexedMessages,
            rejectedEventCount: setAside?.rejectedEvents ?? 0,
            blobDeletionFailureCount: setAside?.blobDeletionFailures ?? 0,
            droppedSubscriberEventCount: core.writer?.broadcaster.droppedCount ?? 0,
            writeErrorCount: writeErrors?.count ?? 0,
            lastWriteError: writeErrors?.last,
            historyGapCount: counts.historyGaps,
            shippers: shippers,
            lastSweepDate: manifest.lastSweepDate,
            lastSweep: manifest.lastSweep)
    }
}
