import Foundation

/// Opens (and when asked, creates) a store: the directory, the manifest, the database with its
/// pragmas and migrations, the session row, the writer and the readers.
enum StoreOpener {
    struct Opened: Sendable {
        let core: StoreCore
        let session: LogStore.Session
        /// This process's `history_authors` row, when history is on and the store writable.
        var historyAuthorID: Int64? = nil
    }

    static func open(
        directory: URL, options: LogStore.Options, configuration: LogStore.Configuration
    ) throws -> Opened {
        // A configuration mistake is refused before anything on disk is touched.
        try configuration.history?.validate()
        // Every failure leaves as a store error: a damaged page met past the first reads (the
        // session's query, a migration) is the same damage as one met at the first.
        // A refused store is left as it was found: without the WAL files the attempt made.
        let hadWALFiles = Files.exists(StoreFiles.walURL(in: directory))
            || Files.exists(StoreFiles.sharedMemoryURL(in: directory))
        do {
            return try openTranslated(directory: directory, options: options, configuration: configuration)
        } catch {
            if !hadWALFiles && !options.contains(.inMemory) && Files.isDirectory(directory) {
                removeWALFilesIfUnused(directory: directory)
            }
            switch error {
            case let error as LogStoreError: throw error
            case let error as DatabaseError where error.isCorrupt: throw corruption(error, in: directory)
            default: throw LogStoreError(error)
            }
        }
    }

    private static func openTranslated(
        directory: URL, options: LogStore.Options, configuration: LogStore.Configuration
    ) throws -> Opened {
        let isReadonly = options.contains(.readonly)
        let manifest = options.contains(.inMemory)
            ? Manifest.new() : try prepareDirectory(directory, options: options)

        // Dated by the store's clock, as its other dates are (a simulation or a test that moves
        // time starts its sessions on its own timeline).
        let session = LogStore.Session(
            id: UUID(), startDate: configuration.timeSource.now(),
            app: AppSnapshot.current(version: configuration.appVersion),
            host: HostSnapshot.current(volume: directory), hostChanges: [])

        let buffer = IngestBuffer(
            capacity: configuration.maxPendingEvents, byteCapacity: configuration.maxPendingBytes,
            policy: configuration.overflowPolicy)
        if isReadonly {
            // SQLite's read-only connections create the WAL and its shared-memory file when
            // missing (and the directory allows it); closing must then take them away again.
            let createsWALFiles = !Files.exists(StoreFiles.walURL(in: directory))
                && !Files.exists(StoreFiles.sharedMemoryURL(in: directory))
            let readers = ReaderPool(count: 2) { try openReader(directory: directory, options: options) }
            // Validate now, so a bad store fails at open rather than at the first query.
            do {
                let reader = try openReader(directory: directory, options: options)
                defer { reader.close() }
                // Reads the schema's pages too: a damaged schema fails here, not at the first query.
                _ = try reader.schemaObjectCount()
                try checkIdentity(
                    directory: directory, manifest: manifest,
                    finding: translate(directory) { try StoreIdentity.check(reader, storeID: manifest.storeId) })
            } catch {
                // A refused store is left as it was found: without the files the attempt made.
                if createsWALFiles { removeWALFilesIfUnused(directory: directory) }
                throw error
            }
            let core = StoreCore(
                directory: directory, options: options, configuration: configuration,
                buffer: buffer, writer: nil, readers: readers, manifest: manifest,
                removesWALFilesAtClose: createsWALFiles && !options.contains(.inMemory))
            return Opened(core: core, session: session)
        }

        let connection = try openWriter(directory: directory, options: options)
        let prepared: PreparedWriter
        do {
            prepared = try prepareWriter(
                connection, directory: directory, options: options, configuration: configuration,
                manifest: manifest, session: session)
        } catch {
            // Refused, the store stays as it was found: its WAL is not copied into the database.
            connection.closeWithoutCheckpoint()
            throw error
        }
        let current = prepared.session
        let lock = prepared.lock
        // Read before the writer takes the rest of `prepared` to its thread.
        let historyAuthorID = prepared.history?.authorID
        let readsThroughWriter = options.contains(.inMemory) || options.contains(.unsafe)
        let batchWriter = BatchWriter(
            connection: connection, session: prepared.record, blobs: prepared.blobs,
            bodySizeLimit: configuration.bodySizeLimit,
            transactionByteLimit: BatchWriter.transactionByteLimit(sizeLimit: configuration.sizeLimit),
            searchPartitionBytes: configuration.sizeLimit / SearchIndex.partitionsPerStore)
        batchWriter.history = prepared.history
        if let checkpointer = prepared.checkpointer {
            checkpointer.attach(to: connection)
            batchWriter.walCheckpointer = checkpointer
        }
        if prepared.history == nil && configuration.history == nil {
            batchWriter.lateHistory = { connection in
                guard try connection.integer(HistoryTables.anyAuthorSQL) != nil else { return nil }
                return try recorder(for: implicitHistoryConfiguration, on: connection)
            }
        }
        let openBackgroundReader: (@Sendable () throws -> Connection)? =
            readsThroughWriter ? nil : { @Sendable in try openReader(directory: directory, options: options) }
        let writer = StoreWriter(
            batchWriter: batchWriter, buffer: buffer, configuration: configuration, openReader: openBackgroundReader)
        writer.start()
        let readers = readsThroughWriter
            ? nil : ReaderPool(count: 2) { try openReader(directory: directory, options: options) }
        let core = StoreCore(
            directory: directory, options: options, configuration: configuration,
            buffer: buffer, writer: writer, readers: readers, manifest: manifest, lock: lock)
        return Opened(core: core, session: current, historyAuthorID: historyAuthorID)
    }

    /// The history a process opened without a history configuration records, once some author
    /// has made the store record one: as a batch author named after the process, so a sweep or
    /// a removal from a maintenance tool (`logstore sweep` from cron) still appears in the
    /// history, with its tombstones, and consumers learn what went.
    ///
    /// A store no author has made record history yet gets its writer a ``LateHistoryStart``
    /// instead: the first author may register in another process while this one writes.
    private static func implicitHistory(_ connection: Connection) throws -> HistoryConfiguration? {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithHistory,
            try connection.integer(HistoryTables.anyAuthorSQL) != nil
        else { return nil }
        return implicitHistoryConfiguration
    }

    static var implicitHistoryConfiguration: HistoryConfiguration {
        let name = "\(HistoryConfiguration.unconfiguredAuthorPrefix)\(ProcessInfo.processInfo.processName)"
        return HistoryConfiguration(currentAuthor: name, batchAuthors: [name])
    }

    /// Registers `history` as the current author, in a transaction of its own when `connection`
    /// is not in one already.
    static func recorder(for history: HistoryConfiguration, on connection: Connection) throws -> HistoryRecorder {
        let fields = try HistoryTombstoneFields.validated(history.tombstones)
        let register = {
            try HistoryRecorder(
                authorID: HistoryAuthors.register(
                    history.currentAuthor, isBatch: history.batchAuthors.contains(history.currentAuthor),
                    guardsRetention: history.retentionGuard, naming: history.requiredAuthors, on: connection),
                tombstoneFields: fields, movesCursorPastOwnChanges: !history.includesOwnChanges)
        }
        return connection.isInTransaction ? try register() : try connection.transaction(.immediate, register)
    }

    /// What ``prepareWriter(_:directory:options:configuration:manifest:session:)`` made.
    private struct PreparedWriter {
        var lock: StoreLock?
        var session: LogStore.Session
        var record: SessionRecord
        var blobs: BlobStore
        var history: HistoryRecorder?
        /// Not attached yet: the writer attaches it once nothing can fail any more.
        var checkpointer: WALCheckpointer?
    }

    /// The writer's part of the open that can still fail: settings, the identity check, the
    /// cleanup after a crash, this process's session and the blob store.
    private static func prepareWriter(
        _ connection: Connection, directory: URL, options: LogStore.Options,
        configuration: LogStore.Configuration, manifest: Manifest, session: LogStore.Session
    ) throws -> PreparedWriter {
        var checkpointer: WALCheckpointer?
        if !options.contains(.unsafe) && !options.contains(.inMemory) {
            checkpointer = try StoreDatabase.limitWAL(connection, sizeLimit: configuration.sizeLimit)
        }
        try checkIdentity(
            directory: directory, manifest: manifest,
            finding: translate(directory) { try StoreIdentity.claim(connection, storeID: manifest.storeId) })
        let lock = options.contains(.inMemory) ? nil : try StoreLock(directory: directory)
        if let lock {
            // What a crash left behind: body files without rows, stale temporary files, a
            // manifest write's temporary file. When another process has the store open it may be
            // about to commit a file it just wrote, so then only files older than a few minutes go.
            let age: TimeInterval = lock.isExclusive ? -1 : 600
            _ = try BlobStore.removeOrphans(directory: directory, connection: connection, olderThan: age)
            Manifest.removeAbandonedWrites(in: directory, olderThan: age)
            Files.removeAbandonedAtomicWrites(of: StoreFiles.databaseURL(in: directory), olderThan: age)
            lock.share()
        }
        let previousHost = try previousSessionHost(connection)
        var current = session
        current.hostChanges = previousHost.map { session.host.changes(since: $0) } ?? []
        let history = try (configuration.history ?? implicitHistory(connection)).map { history in
            try recorder(for: history, on: connection)
        }
        let sessionRecord = configuration.recordsSessionOnOpen
            ? try insertSession(current, into: connection, history: history) : try unrecordedSession(current)
        let blobs = try BlobStore(
            connection: connection, directory: options.contains(.inMemory) ? nil : directory,
            settings: BlobStore.Settings(configuration: configuration, options: options))
        return PreparedWriter(
            lock: lock, session: current, record: sessionRecord, blobs: blobs, history: history,
            checkpointer: checkpointer)
    }

    /// The database must be this store's: another store's WAL (or database file) beside the
    /// manifest is refused before anything is read as this store's or cleaned up.
    private static func checkIdentity(directory: URL, manifest: Manifest, finding: StoreIdentity.Finding) throws {
        guard case .belongsTo(let other) = finding else { return }
        throw LogStoreError.storeInvalid(
            directory,
            reason: "logs.sqlite (with its -wal file) holds the rows of another store (\(other)), not of this "
                + "manifest's (\(manifest.storeId.uuidString)): a file was copied in from elsewhere, most likely "
                + "logs.sqlite-wal. Nothing was changed; put the store's own files back, or move the directory aside")
    }

    // MARK: The database

    private static func openWriter(directory: URL, options: LogStore.Options) throws -> Connection {
        let connection: Connection
        if options.contains(.inMemory) {
            connection = try translate(directory) { try Connection(path: ":memory:", mode: .readWrite(create: true)) }
        } else {
            let url = StoreFiles.databaseURL(in: directory)
            try Files.createOwnerOnlyFileIfMissing(url)
            connection = try translate(directory) { try Connection(path: url.path, mode: .readWrite(create: false)) }
        }
        var isReady = false
        defer { if !isReady { connection.closeWithoutCheckpoint() } }
        try translate(directory) { try StoreDatabase.configureWriter(connection, options: options) }
        try checkBeforeMigrating(connection, directory: directory)
        try StoreDatabase.migrate(connection)
        isReady = true
        return connection
    }

    /// A store of an older schema is checked (every page once) before it is migrated
    /// (``StoreDatabase/damageBeforeMigrating(_:)``); refused here, nothing has been written.
    private static func checkBeforeMigrating(_ connection: Connection, directory: URL) throws {
        let damage = try translate(directory) { try StoreDatabase.damageBeforeMigrating(connection) }
        guard let result = damage else { return }
        throw LogStoreError.storeInvalid(
            directory,
            reason: "logs.sqlite is damaged (\(result)); it was left as it was, not migrated to schema "
                + "\(Migrations.latestVersion). Open it read-only to read what it holds, and move it aside to start a new store")
    }

    static func openReader(directory: URL, options: LogStore.Options) throws -> Connection {
        let url = StoreFiles.databaseURL(in: directory)
        return try translate(directory) {
            do {
                return try StoreDatabase.openReadOnly(path: url.path)
            } catch let error as DatabaseError where error.isCannotOpen {
                // A read-only directory without the WAL's shared-memory file: nothing can be
                // writing, so read the file as immutable.
                let escaped = url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? url.path
                return try StoreDatabase.openReadOnly(path: "file:\(escaped)?immutable=1")
            }
        }
    }

    /// Removes the (empty) WAL and shared-memory files a read-only open made SQLite create,
    /// when no connection of any process has the database open any more.
    ///
    /// A read-only connection can neither checkpoint nor delete them, and deleting them by hand
    /// is unsafe: a writer, ours or any other program's, may have opened the WAL since. So a
    /// read-write connection does it the way SQLite always does (sqlite.org/wal.html, "the WAL
    /// file is deleted when the last connection closes"): at its close it takes the exclusive
    /// lock on the database file, which it gets only when it is the last connection, and only
    /// then checkpoints and deletes both files. With an empty WAL that checkpoint writes nothing,
    /// so the database file is left byte for byte as it was. When another connection is open, or
    /// the WAL holds frames another process committed (then it is theirs to checkpoint), or the
    /// file cannot be opened for writing, the files stay, as they would with any SQLite reader.
    static func removeWALFilesIfUnused(directory: URL) {
        let wal = StoreFiles.walURL(in: directory)
        guard Files.exists(wal), Files.fileSize(wal) == 0 else { return }
        StoreDatabase.closeAsLastConnection(path: StoreFiles.databaseURL(in: directory).path)
    }

    /// Turns SQLite's "not a database" and "cannot open" into store errors that name the file.
    /// SQLite's "not a database" / "malformed" as the store reports it.
    private static func corruption(_ error: DatabaseError, in directory: URL) -> LogStoreError {
        .storeInvalid(directory, reason: "logs.sqlite is not a valid SQLite database (\(error.message))", cause: error)
    }

    private static func translate<T>(_ directory: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.isCorrupt {
            throw corruption(error, in: directory)
        } catch let error as DatabaseError where error.isCannotOpen {
            // SQLite reports the errno of its last attempt (often the WAL's), which can mislead:
            // a directory nobody may create files in is the usual cause, so say that when true.
            if let code = Files.creationError(in: directory) {
                throw LogStoreError.fileSystem(directory, operation: "create files in", errno: code)
            }
            throw LogStoreError.fileSystem(
                StoreFiles.databaseURL(in: directory), operation: "open", errno: error.systemErrno)
        } catch let error as DatabaseError {
            throw LogStoreError.database(error)
        }
    }
}
