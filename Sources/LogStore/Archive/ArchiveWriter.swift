import Foundation

/// Writes an archive (``ArchiveFormat``) of what an export selects, in two phases: the snapshot
/// copy of the database, made on the store's read connection (``copySnapshot(from:options:to:progress:)``),
/// then everything else away from the store (``write(snapshot:files:storeID:to:progress:)``): the
/// bodies kept in files, the copy in compressed chunks, the info record. The store's connection
/// is held only as long as the copy takes.
enum ArchiveWriter {
    /// Phase 1: the consistent copy of what `options` select, into the empty file `scratch`.
    ///
    /// A store of an older schema (opened read-only, so never migrated) is copied whole, the
    /// private copy migrated like a store, and the selection made from it: an archive always
    /// holds this library's schema.
    static func copySnapshot(
        from connection: Connection, options: ExportOptions, to scratch: URL, destination: ExportDestination,
        progress: ExportProgressReporter
    ) throws {
        try progress.advance(.copying, by: 0)
        try progress.interruptible(connection) {
            guard try Migrations.currentVersion(connection) < Migrations.latestVersion else {
                return try ArchiveSnapshot.copy(from: connection, options: options, to: scratch, progress: progress)
            }
            let whole = options.selectsEverything ? scratch : try destination.makeCompanionFile("whole")
            try connection.run("VACUUM INTO ?", [.text(whole.path)])
            let migrated = try Connection(path: whole.path, mode: .readWrite(create: false))
            defer { migrated.close() }
            try progress.interruptible(migrated) {
                try migrated.setScratchJournal(.off)
                try Migrations.migrate(migrated)
                if !options.selectsEverything {
                    try ArchiveSnapshot.copy(from: migrated, options: options, to: scratch, progress: progress)
                    // The whole copy served its purpose: its disk goes back now, not at the end.
                    unlink(whole.path)
                }
            }
        }
    }

    /// Phase 2: the archive, from the finished copy at `scratch`, into the destination's
    /// temporary file.
    static func write(
        snapshot scratch: URL, files: (any StoredBlobFiles)?, storeID: UUID, to destination: ExportDestination,
        progress: ExportProgressReporter
    ) throws -> ArchiveInfo {
        let copy = try ArchiveSnapshot.open(scratch)
        defer { copy.close() }
        try progress.interruptible(copy) {
            try ArchiveSnapshot.dropHistory(copy)
            try ArchiveSnapshot.catchUpSearchIndex(copy)
        }
        var contents = try ArchiveSnapshot.contents(of: copy)
        let blobBytes = contents.blobFiles.reduce(Int64(0)) { $0 + Int64($1.size) }
        progress.setTotal(Files.fileSize(scratch) + blobBytes)

        let archive = try ArchiveDocument(creatingAt: destination.temporary)
        defer { archive.close() }
        let (blobFiles, removed) = try copyBlobFiles(contents.blobFiles, from: files, into: archive, progress: progress)
        if !removed.isEmpty {
            try ArchiveSnapshot.markBodiesRemoved(removed, in: copy)
            contents = try ArchiveSnapshot.contents(of: copy)
        }
        copy.close()

        let databaseSize = Files.fileSize(scratch)
        guard databaseSize > 0 else {
            throw LogStoreError.fileSystem(scratch, operation: "read the size of", errno: EIO)
        }
        let chunks = try ChunkCompression.compress(file: scratch, size: databaseSize, into: archive, progress: progress)
        let info = ArchiveInfo(
            formatVersion: ArchiveFormat.version, storeID: UUID(), sourceStoreID: storeID, createdAt: Date(),
            libraryVersion: LogStore.Version.library.description, schemaVersion: contents.schemaVersion,
            messageCount: contents.messageCount, taskCount: contents.taskCount, blobCount: contents.blobCount,
            sessions: contents.sessions, databaseSize: databaseSize,
            blobFileSize: blobFiles.reduce(Int64(0)) { $0 + Int64($1.size) }, chunks: chunks, blobFiles: blobFiles)
        try archive.insertInfo(info)
        return info
    }

    /// Copies the bodies kept in files, as stored; returns their entries, and the row ids of
    /// those whose files a sweep removed after the snapshot.
    private static func copyBlobFiles(
        _ blobs: [(rowID: Int64, key: SHA1.Digest, size: Int)], from files: (any StoredBlobFiles)?,
        into archive: ArchiveDocument, progress: ExportProgressReporter
    ) throws -> (entries: [ArchiveInfo.BlobFile], removed: [Int64]) {
        var entries: [ArchiveInfo.BlobFile] = []
        var removed: [Int64] = []
        for blob in blobs {
            let invalid = { (reason: String) in
                LogStoreError.storeInvalid(URL(fileURLWithPath: "blobs/\(blob.key.hex)"), reason: reason)
            }
            guard let files else { throw invalid("its bytes are in a file, and this store has none") }
            let bytes: Data
            do {
                bytes = try files.storedBytes(of: blob.key, size: blob.size, invalid: invalid)
            } catch where files.isMissing(blob.key) {
                removed.append(blob.rowID)
                continue
            }
            try archive.insertBlob(blob.key, bytes)
            entries.append(ArchiveInfo.BlobFile(
                key: blob.key.hex, size: bytes.count, crc32: bytes.withUnsafeBytes { crc32Checksum($0) }))
            try progress.advance(.bodies, by: Int64(blob.size))
        }
        return (entries, removed)
    }
}
