import Foundation

/// Opens an archive as a read-only store: checks the file, extracts its database into a private
/// directory, checks the database (migrating the private copy when an older library wrote it),
/// and builds the store's readers on it.
enum ArchiveOpener {
    static func open(_ url: URL, limits: ArchiveLimits, configuration: LogStore.Configuration) throws -> StoreOpener.Opened {
        let file = try ArchiveFile(url: url, limits: limits)
        let scratch: ArchiveScratchDirectory
        do {
            scratch = try ArchiveScratchDirectory()
        } catch {
            file.close()
            throw error
        }
        let archive = OpenedArchive(file: file, scratch: scratch)
        do {
            try checkRoom(for: file.info.databaseSize, in: scratch.url)
            let database = StoreFiles.databaseURL(in: scratch.url)
            try file.extractDatabase(to: database)
            let reader = try translating(url) { try ArchiveDatabase.openReader(database) }
            try translating(url) { try ArchiveDatabase.check(reader, schemaVersion: file.info.schemaVersion, archive: url) }
            reader.close()
            if file.info.schemaVersion < Migrations.latestVersion {
                // An archive of an older library: its private copy is migrated, then checked
                // again as this library's own schema.
                try translating(url) { try ArchiveDatabase.migrate(database) }
                let migrated = try translating(url) { try ArchiveDatabase.openReader(database) }
                defer { migrated.close() }
                try translating(url) {
                    try ArchiveDatabase.check(migrated, schemaVersion: Migrations.latestVersion, archive: url)
                }
            }
            let manifest = Manifest(
                storeId: file.info.storeID, version: .store, creationDate: file.info.createdAt, lastSweepDate: nil,
                lastSweep: nil)
            let readers = ReaderPool(count: 2) { try ArchiveDatabase.openReader(database) }
            let buffer = IngestBuffer(
                capacity: configuration.maxPendingEvents, byteCapacity: configuration.maxPendingBytes,
                policy: configuration.overflowPolicy)
            let core = StoreCore(
                directory: scratch.url, options: .readonly, configuration: configuration, buffer: buffer, writer: nil,
                readers: readers, manifest: manifest, archive: archive)
            let session = LogStore.Session(
                id: UUID(), startDate: Date(), app: AppSnapshot.current(version: configuration.appVersion),
                host: HostSnapshot.current(volume: scratch.url), hostChanges: [])
            return StoreOpener.Opened(core: core, session: session)
        } catch {
            archive.close()
            throw error
        }
    }

    /// Refuses to extract more than the temporary volume can take (with 64 MiB to spare).
    private static func checkRoom(for size: Int64, in directory: URL) throws {
        var volume = statvfs()
        guard statvfs(directory.path, &volume) == 0 else { return }
        let available = Int64(volume.f_bavail) * Int64(volume.f_frsize)
        if available < size + (64 << 20) {
            throw LogStoreError.fileSystem(directory, operation: "extract \(size) bytes into", errno: ENOSPC)
        }
    }

    private static func translating<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        try ArchiveFile.translating(url, what: "the archive's database", body)
    }
}
