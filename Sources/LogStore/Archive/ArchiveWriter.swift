import Foundation

/// Writes an archive (``ArchiveFormat``) of what an export selects, into the export's temporary
/// file: the snapshot copy of the database (``ArchiveSnapshot``) beside it first, then the bodies
/// kept in files, then the copy in compressed chunks, then the info record.
enum ArchiveWriter {
    /// Where the archive's bodies come from, and which store it is made of.
    struct Source {
        /// A connection to the store's database, idle (not in a transaction).
        let connection: Connection
        /// The bytes of bodies kept in files: a store's `blobs/`, or an opened archive's.
        let files: (any StoredBlobFiles)?
        let storeID: UUID
    }

    static func write(
        from source: Source, options: ExportOptions, to destination: ExportDestination,
        progress: ExportProgressReporter
    ) throws -> ArchiveInfo {
        // The copy sits beside the archive (same file system, owner-only) until the archive is done.
        let scratch = destination.temporary.deletingLastPathComponent()
            .appendingPathComponent(destination.temporary.lastPathComponent + "-database")
        try Files.createOwnerOnlyFile(scratch)
        defer { unlink(scratch.path) }

        try progress.advance(.copying, by: 0)
        try ArchiveSnapshot.copy(from: source.connection, options: options, to: scratch)
        let copy = try ArchiveSnapshot.open(scratch)
        defer { copy.close() }
        var contents = try ArchiveSnapshot.contents(of: copy)
        let blobBytes = contents.blobFiles.reduce(Int64(0)) { $0 + Int64($1.size) }
        progress.setTotal(Files.fileSize(scratch) + blobBytes)

        let archive = try ArchiveDocument(creatingAt: destination.temporary)
        defer { archive.close() }
        let (blobFiles, removed) = try copyBlobFiles(contents.blobFiles, from: source.files, into: archive, progress: progress)
        if !removed.isEmpty {
            try ArchiveSnapshot.markBodiesRemoved(removed, in: copy)
            contents = try ArchiveSnapshot.contents(of: copy)
        }
        copy.close()

        let databaseSize = Files.fileSize(scratch)
        let chunks = try ChunkCompression.compress(file: scratch, size: databaseSize, into: archive, progress: progress)
        let info = ArchiveInfo(
            formatVersion: ArchiveFormat.version, storeID: UUID(), sourceStoreID: source.storeID, createdAt: Date(),
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
