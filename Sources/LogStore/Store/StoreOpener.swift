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

        let session = LogStore.Session(
            id: UUID(), startDate: Date(),
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
                _ = try reader.integer("SELECT count(*) FROM sqlite_schema")
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
        let prepared: (lock: StoreLock?, session: LogStore.Session, record: SessionRecord, blobs: BlobStore, history: HistoryRecorder?)
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
        let readsThroughWriter = options.contains(.inMemory) || options.contains(.unsafe)
        let batchWriter = BatchWriter(
            connection: connection, session: prepared.record, blobs: prepared.blobs,
            bodySizeLimit: configuration.bodySizeLimit,
            transactionByteLimit: BatchWriter.transactionByteLimit(sizeLimit: configuration.sizeLimit))
        batchWriter.history = prepared.history
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
        return Opened(core: core, session: current, historyAuthorID: prepared.history?.authorID)
    }

    /// The history a process opened without a history configuration records, once some author
    /// has made the store record one: as a batch author named after the process, so a sweep or
    /// a removal from a maintenance tool (`logstore sweep` from cron) still appears in the
    /// history, with its tombstones, and consumers learn what went.
    private static func implicitHistory(_ connection: Connection) throws -> HistoryConfiguration? {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithHistory,
            try connection.integer("SELECT 1 FROM history_authors LIMIT 1") != nil
        else { return nil }
        let name = "\(HistoryConfiguration.unconfiguredAuthorPrefix)\(ProcessInfo.processInfo.processName)"
        return HistoryConfiguration(currentAuthor: name, batchAuthors: [name])
    }

    /// The writer's part of the open that can still fail: settings, the identity check, the
    /// cleanup after a crash, this process's session and the blob store.
    private static func prepareWriter(
        _ connection: Connection, directory: URL, options: LogStore.Options,
        configuration: LogStore.Configuration, manifest: Manifest, session: LogStore.Session
    ) throws -> (lock: StoreLock?, session: LogStore.Session, record: SessionRecord, blobs: BlobStore, history: HistoryRecorder?) {
        if !options.contains(.unsafe) && !options.contains(.inMemory) {
            // After a checkpoint the WAL is cut back to this size, or it would keep the size of
            // the largest transaction ever written: a sixteenth of the size limit, 256 KiB–64 MiB.
            let walLimit = min(max(configuration.sizeLimit / 16, 256 << 10), 64 << 20)
            try connection.execute("PRAGMA journal_size_limit = \(walLimit)")
            // Checkpoint once the WAL holds half that (SQLite's default, 1,000 pages, is 4 MB:
            // 6 % of a 64 MB limit, before the transaction that crosses it).
            let pageSize = try connection.integer("PRAGMA page_size") ?? 4096
            try connection.execute("PRAGMA wal_autocheckpoint = \(min(1_000, max(64, walLimit / 2 / pageSize)))")
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
            let fields = try HistoryTombstoneFields.validated(history.tombstones)
            return try connection.transaction(.immediate) {
                try HistoryRecorder(
                    authorID: HistoryAuthors.register(
                        history.currentAuthor, isBatch: history.batchAuthors.contains(history.currentAuthor),
                        guardsRetention: history.retentionGuard, naming: history.requiredAuthors, on: connection),
                    tombstoneFields: fields, movesCursorPastOwnChanges: !history.includesOwnChanges)
            }
        }
        let sessionRecord = configuration.recordsSessionOnOpen
            ? try insertSession(current, into: connection, history: history) : try unrecordedSession(current)
        let blobs = try BlobStore(
            connection: connection, directory: options.contains(.inMemory) ? nil : directory,
            settings: BlobStore.Settings(configuration: configuration, options: options))
        return (lock, current, sessionRecord, blobs, history)
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

    // MARK: The directory and the manifest

    /// Checks (or creates) the store directory and returns its manifest.
    private static func prepareDirectory(_ directory: URL, options: LogStore.Options) throws -> Manifest {
        let canCreate = options.contains(.create) && !options.contains(.readonly)
        if !Files.exists(directory) {
            guard canCreate else { throw LogStoreError.fileDoesntExist(directory) }
            try StoreFiles.createDirectory(directory)
            return try createManifest(in: directory)
        }
        guard Files.isDirectory(directory) else {
            throw LogStoreError.storeInvalid(directory, reason: "it is a file, not a store directory")
        }
        if !options.contains(.readonly) { try checkOwner(directory) }
        let manifestURL = directory.appendingPathComponent(Manifest.fileName)
        if !Files.exists(manifestURL) {
            // An empty directory (made by the caller) may become a store; anything else is not ours.
            // One that cannot be listed is reported, never taken for empty. The manifest another
            // process is creating right now (its temporary file) does not count.
            let contents = try Files.directoryEntries(directory)
                .filter { !Files.isAtomicWriteTemporary($0, of: Manifest.fileName) }
            if canCreate, contents.isEmpty { return try createManifest(in: directory) }
            // Another open may have created the store between the first look and the listing:
            // its manifest is then read like any other.
            guard Files.exists(manifestURL) else {
                throw LogStoreError.storeInvalid(directory, reason: "manifest.json is missing")
            }
        }
        let manifest = try Manifest.read(in: directory)
        let database = StoreFiles.databaseURL(in: directory)
        if !Files.exists(database), options.contains(.readonly) {
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is missing")
        }
        try checkDatabaseFile(database, in: directory)
        // A store whose database is gone or empty while its bodies remain lost its database:
        // starting a fresh one would take every body file for an orphan and delete it.
        let isEmpty = !Files.exists(database) || Files.fileSize(database) == 0
        if isEmpty, try BlobStore.hasFiles(in: directory) {
            throw LogStoreError.storeInvalid(
                directory, reason: "logs.sqlite is \(Files.exists(database) ? "empty" : "missing") and blobs/ holds bodies")
        }
        if isEmpty, options.contains(.readonly) {
            // Read-only cannot give it the schema: there is no store to read yet.
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is empty")
        }
        if !options.contains(.readonly), Files.exists(database) { try checkOwner(database) }
        return manifest
    }

    /// The database must be a file of the store's own: a symbolic link would have the store
    /// write (and set owner-only modes on) whatever it points at, and anything else is not SQLite's.
    private static func checkDatabaseFile(_ database: URL, in directory: URL) throws {
        var info = stat()
        guard lstat(database.path, &info) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK:
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is a symbolic link, not a file of the store's own")
        default:
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is not a file")
        }
    }

    /// A store's files are its owner's alone (mode 0600). Root writing another user's store
    /// would leave files (the WAL, bodies) its owner's app could not open again, so root may
    /// only read it. (Any other user is stopped by the modes themselves; a directory shared on
    /// purpose, group-writable, stays usable by its group.)
    private static func checkOwner(_ url: URL) throws {
        let user = geteuid()
        guard user == 0 else { return }
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_uid != user else { return }
        throw LogStoreError.fileSystem(
            url,
            operation: "open for writing as root (it is owned by uid \(info.st_uid)\(userName(info.st_uid)), and files root made would lock its owner out); open it read-only or as its owner",
            errno: EPERM)
    }

    /// ` (name)` for a user the system knows, or nothing.
    private static func userName(_ uid: uid_t) -> String {
        // getpwuid_r: the name points into `buffer`, read before the buffer goes.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            guard let base = buffer.baseAddress, getpwuid_r(uid, &entry, base, buffer.count, &found) == 0, found != nil,
                let name = entry.pw_name
            else { return "" }
            return " (\(String(cString: name)))"
        }
    }

    private static func createManifest(in directory: URL) throws -> Manifest {
        try Manifest.new().create(in: directory)
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
        try translate(directory) {
            try connection.setBusyTimeout()
            try checkVersion(connection)
            let isEmpty = try Migrations.currentVersion(connection) == 0
                && (try connection.integer("SELECT count(*) FROM sqlite_schema") ?? 0) == 0
            if isEmpty {
                // Must precede the first table: lets the sweep give pages back to the file system.
                try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
            }
            try configureJournal(connection, options: options)
            try connection.execute("PRAGMA foreign_keys = ON")
            // Above SQLite's default 2 MB, so a batch transaction (BatchWriter.eventsPerTransaction)
            // rarely spills mid-way; 4 MB, not 8: the 1M-message benchmark ran as fast with 4 MB
            // (and with 2 MB), and the larger cache was ~11 MB of its peak RSS (pages plus the
            // allocator's slack around them).
            try connection.execute("PRAGMA cache_size = -4096")
        }
        try checkBeforeMigrating(connection, directory: directory)
        do {
            try Migrations.migrate(connection)
        } catch let newer as Migrations.NewerSchema {
            throw LogStoreError.unsupportedVersion(found: .schema(newer.found), supported: .schema(newer.supported))
        }
        isReady = true
        return connection
    }

    /// A store of an older schema is checked (`PRAGMA quick_check`, every page once) before it is
    /// migrated: a migration copies and rewrites tables, and over a damaged page it could lose
    /// rows without a word, or commit half a store before the damage stops the open. Refused
    /// here, nothing has been written. Once per store and library upgrade.
    private static func checkBeforeMigrating(_ connection: Connection, directory: URL) throws {
        let version = try translate(directory) { try Migrations.currentVersion(connection) }
        guard version > 0, version < Migrations.latestVersion else { return }
        let result = try translate(directory) { try connection.text("PRAGMA quick_check(1)") }
        guard let result, result != "ok" else { return }
        throw LogStoreError.storeInvalid(
            directory,
            reason: "logs.sqlite is damaged (\(result)); it was left as it was, not migrated to schema "
                + "\(Migrations.latestVersion). Open it read-only to read what it holds, and move it aside to start a new store")
    }

    /// Journal settings, each resting on SQLite's documentation (sqlite.org/pragma.html, /wal.html).
    private static func configureJournal(_ connection: Connection, options: LogStore.Options) throws {
        if options.contains(.unsafe) {
            // No rollback journal, no fsync, no shared-memory locking: fastest, and a crash can
            // corrupt the file. Only when asked for.
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("PRAGMA journal_mode = OFF")
            try connection.execute("PRAGMA synchronous = OFF")
            try connection.execute("PRAGMA temp_store = MEMORY")
            return
        }
        if !options.contains(.inMemory) {
            // WAL: readers never block the writer nor the writer them; commits append to the log.
            let mode = try connection.text("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(message: "could not enable WAL (got \(mode ?? "nothing"))")
            }
        }
        // NORMAL in WAL mode: a commit is atomic and survives a process crash; only a power loss
        // may roll back the last transactions. Set explicitly: Debian builds default WAL to FULL.
        try connection.execute("PRAGMA synchronous = NORMAL")
    }

    private static func checkVersion(_ connection: Connection) throws {
        let found = try Migrations.currentVersion(connection)
        guard found <= Migrations.latestVersion else {
            throw LogStoreError.unsupportedVersion(found: .schema(found), supported: .schema(Migrations.latestVersion))
        }
    }

    static func openReader(directory: URL, options: LogStore.Options) throws -> Connection {
        let url = StoreFiles.databaseURL(in: directory)
        return try translate(directory) {
            do {
                return try openReadOnly(path: url.path)
            } catch let error as DatabaseError where error.isCannotOpen {
                // A read-only directory without the WAL's shared-memory file: nothing can be
                // writing, so read the file as immutable.
                let escaped = url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? url.path
                return try openReadOnly(path: "file:\(escaped)?immutable=1")
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
        // No busy timeout: a connection that has to wait is not the last one.
        guard let connection = try? Connection(path: StoreFiles.databaseURL(in: directory).path, mode: .readWrite(create: false))
        else { return }
        // The WAL opens with the first read; closing then does the rest.
        _ = try? connection.integer("PRAGMA schema_version")
        connection.close()
    }

    private static func openReadOnly(path: String) throws -> Connection {
        let connection = try Connection(path: path, mode: .readOnly)
        try connection.setBusyTimeout()
        try checkVersion(connection)
        return connection
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

    // MARK: Sessions

    private static func previousSessionHost(_ connection: Connection) throws -> HostSnapshot? {
        guard let json = try connection.text("SELECT host FROM sessions ORDER BY id DESC LIMIT 1") else { return nil }
        // A snapshot another tool rewrote is only a lost comparison, not a reason to refuse to open.
        return try? StoreJSON.decoder.decode(HostSnapshot.self, from: Data(json.utf8))
    }

    private static func insertSession(
        _ session: LogStore.Session, into connection: Connection, history: HistoryRecorder?
    ) throws -> SessionRecord {
        var record = try unrecordedSession(session)
        try connection.transaction(.immediate) {
            // Counted like every writer transaction: a WAL holding only this still names its store.
            try connection.execute(StoreIdentity.countCommitSQL)
            try record.insert(into: connection)
            history?.record(.session, .insert, id: record.rowID)
            try history?.flush(connection)
        }
        return record
    }

    /// The session's row, not yet in the database (``LogStore/Configuration/recordsSessionOnOpen``):
    /// the writer inserts it before its first commit.
    private static func unrecordedSession(_ session: LogStore.Session) throws -> SessionRecord {
        SessionRecord(
            rowID: SessionRecord.unrecorded, uuid: session.id.uuidString, startedAt: session.startDate.timeIntervalSince1970,
            app: String(decoding: try StoreJSON.compactEncoder.encode(session.app), as: UTF8.self),
            host: String(decoding: try StoreJSON.compactEncoder.encode(session.host), as: UTF8.self))
    }
}
