import Foundation
import Glibc

/// Network bodies, deduplicated by content, in the `blobs` table and the `blobs/` directory.
///
/// A body's key is the SHA-1 of its bytes (the caller passes them already redacted). Storing a
/// body whose key exists only adds a link (`link_count + 1`): no compression, no file. A new
/// body is zlib-compressed with a reused stream and kept compressed only when that is smaller;
/// up to ``Settings/inlineLimit`` stored bytes it lives in the row (`data`), larger ones in a
/// file `blobs/<40 lowercase hex>` beside the database (`data` is NULL). Unlinking removes a
/// link; the last one deletes the row and, once the transaction has committed, the file.
///
/// ## Threading
///
/// Confined to the writer thread, like the writer's ``Connection`` it uses: it owns a zlib
/// stream and the bookkeeping of the writer's open transaction. Not `Sendable`. Readers use the
/// static ``data(forKey:connection:directory:maxSize:)`` on their own connection.
///
/// ## The transaction protocol
///
/// ``store(_:)`` and ``unlink(rowID:)`` / ``unlink(key:)`` run inside a transaction the caller
/// owns (the writer's batch); they never begin or commit one. As soon as that transaction has
/// ended, and before the next one begins, the caller calls exactly one of
/// - ``didCommit()``: deletes the files of the blobs whose last link went in the transaction;
/// - ``didRollBack()``: deletes the files written for blobs the transaction inserted (their rows
///   are gone) and forgets the pending deletions (their rows are back).
///
/// ```swift
/// let failures: [LogStoreError]
/// do {
///     try connection.transaction { reference = try blobs.store(body) }
///     failures = blobs.didCommit()
/// } catch {
///     failures = blobs.didRollBack()
/// }
/// ```
///
/// ## Crash safety
///
/// A new file is complete before the row naming it is inserted: written under a temporary name
/// in `blobs/`, synced (unless ``Durability/unsafe``), renamed to its key, and the directory
/// synced. So a committed row always has its whole file, and a crash leaves at worst files
/// without rows (a rolled-back or uncommitted insert, a deletion not yet done) and temporary
/// files, which ``removeOrphans(directory:connection:olderThan:now:)`` deletes later.
///
/// Both ``didCommit()`` and ``didRollBack()`` delete a file only when no row keeps that key in a
/// file (one lookup per file): this covers a blob deleted and stored again in one transaction,
/// and `.unsafe` stores, whose journal is off and whose ROLLBACK SQLite leaves undefined. It
/// does not make several processes writing one store safe: one's deletion can race another's
/// new copy of the same body between the lookup and the unlink.
final class BlobStore {
    /// How blobs are stored.
    struct Settings: Sendable, Equatable {
        /// Blobs up to this many stored bytes (after compression) live in the row; larger ones
        /// are files. Default: 16 KiB.
        var inlineLimit: Int = 16 * 1024
        /// Whether bodies are zlib-compressed (kept compressed only when smaller). Default: `true`.
        var isCompressionEnabled = true
        /// zlib's level, 0…9. Default: 1 (about 2.5× faster than 6 for ~20 % larger output).
        var compressionLevel = ZlibCompressor.defaultLevel
        /// Whether blob files are synced before their rows can commit. Default: ``Durability/durable``.
        var durability = Durability.durable

        init(
            inlineLimit: Int = 16 * 1024, isCompressionEnabled: Bool = true,
            compressionLevel: Int = ZlibCompressor.defaultLevel, durability: Durability = .durable
        ) {
            self.inlineLimit = inlineLimit
            self.isCompressionEnabled = isCompressionEnabled
            self.compressionLevel = compressionLevel
            self.durability = durability
        }

        /// The settings a store opened with `configuration` and `options` uses: `.unsafe`
        /// stores skip the syncs, as their database does.
        init(configuration: LogStore.Configuration, options: LogStore.Options) {
            self.init(
                inlineLimit: configuration.inlineBlobLimit,
                isCompressionEnabled: configuration.isBlobCompressionEnabled,
                durability: options.contains(.unsafe) ? .unsafe : .durable)
        }
    }

    /// Whether blob files reach the disk before the rows that name them commit.
    enum Durability: Sendable, Equatable {
        /// Each file and the `blobs/` directory are synced (`fsync`) before the row is inserted:
        /// after a power loss a committed row still has its file.
        case durable
        /// No syncs (`.unsafe` stores, whose database is not crash-safe either).
        case unsafe
    }

    /// `blobs.compression`: how the stored bytes are encoded.
    enum Compression: Int64, Sendable {
        /// The stored bytes are the body.
        case none = 0
        /// The stored bytes are one zlib (RFC 1950) stream of the body.
        case zlib = 1
    }

    let connection: Connection
    /// The store directory, `nil` for an in-memory store (every blob is then inline).
    let directory: URL?
    let settings: Settings
    private let compressor: ZlibCompressor
    /// The last compressed body, reused so compressing allocates nothing once warm.
    private var compressionBuffer: [UInt8] = []

    /// `blobs/`, or `nil` for an in-memory store.
    let blobsDirectory: URL?
    /// Whether `blobs/` is known to exist (it is created on the first file).
    var isBlobsDirectoryReady = false
    /// Keys whose file was written (renamed into place) in the open transaction, for a blob that
    /// had no committed file before it: a rollback deletes them.
    var createdFiles: Set<SHA1.Digest> = []
    /// Keys whose row the open transaction deleted, with a file: a commit deletes the files.
    var pendingDeletions: Set<SHA1.Digest> = []
    /// The writer's change history (``BatchWriter/history``), told of every row inserted and
    /// deleted; nil when history is off, which then costs nothing here.
    var history: HistoryRecorder?

    /// - Parameters:
    ///   - connection: the writer's connection.
    ///   - directory: the store directory; `nil` for an in-memory store.
    /// - Throws: ``ZlibError`` when zlib cannot set up a stream (an invalid level, no memory).
    init(connection: Connection, directory: URL?, settings: Settings = Settings()) throws {
        self.connection = connection
        self.directory = directory
        self.settings = settings
        self.blobsDirectory = directory.map(Self.blobsDirectory(in:))
        self.compressor = try ZlibCompressor(level: settings.compressionLevel)
    }

    // MARK: Storing

    /// Stores a body, or adds a link to the identical body already stored.
    ///
    /// Must run inside the caller's transaction (see the type's documentation); a file it writes
    /// is complete under its final name before this returns.
    ///
    /// - Parameter body: the bytes to keep, already redacted; their SHA-1 is the key.
    /// - Returns: the blob's row, key and sizes.
    /// - Throws: ``DatabaseError``; ``LogStoreError/fileSystem(_:operation:errno:)`` when the
    ///   file cannot be written (nothing is then inserted); ``ZlibError`` when zlib fails.
    func store(_ body: UnsafeRawBufferPointer) throws -> BlobReference {
        assert(connection.isInTransaction, "BlobStore.store runs inside the caller's transaction")
        let key = SHA1.hash(body)
        // A dedup hit must stay cheap: look the key up before compressing anything.
        if let existing = try addLink(to: key) { return existing }
        return try insertNew(body, key: key)
    }

    /// Inserts a body the store does not have, compressed when that is smaller.
    private func insertNew(_ body: UnsafeRawBufferPointer, key: SHA1.Digest) throws -> BlobReference {
        defer {
            // One huge body must not pin its compressed copy for the writer's lifetime.
            if compressionBuffer.capacity > Self.retainedBufferCapacity { compressionBuffer = [] }
        }
        let rowID: Int64
        let size: Int
        if try compressIfSmaller(body) {
            size = compressionBuffer.count
            rowID = try compressionBuffer.withUnsafeBytes { stored in
                try insert(key: key, stored: stored, compression: .zlib, decompressedSize: body.count)
            }
        } else {
            size = body.count
            rowID = try insert(key: key, stored: body, compression: .none, decompressedSize: body.count)
        }
        return BlobReference(rowID: rowID, key: key, size: size, decompressedSize: body.count)
    }

    /// Stores a body whose key (and, when it is new, what compressing it gave) were computed
    /// ahead off the writer thread. The key is not computed again; a new body is compressed here
    /// only when the preparation did not try (``PreparedBlob/Compression/untried``).
    func store(_ body: PreparedBlob) throws -> BlobReference {
        assert(connection.isInTransaction, "BlobStore.store runs inside the caller's transaction")
        if let existing = try addLink(to: body.key) { return existing }
        return try body.data.withUnsafeBytes { raw in
            switch body.compression {
            case .zlib(let compressed):
                let rowID = try compressed.withUnsafeBytes { stored in
                    try insert(key: body.key, stored: stored, compression: .zlib, decompressedSize: raw.count)
                }
                return BlobReference(rowID: rowID, key: body.key, size: compressed.count, decompressedSize: raw.count)
            case .incompressible:
                let rowID = try insert(key: body.key, stored: raw, compression: .none, decompressedSize: raw.count)
                return BlobReference(rowID: rowID, key: body.key, size: raw.count, decompressedSize: raw.count)
            case .untried:
                return try insertNew(raw, key: body.key)
            }
        }
    }

    /// Which of `keys` have a blob row (bodies that need no compression), looked up in one read
    /// transaction on `connection`: a lookup each in autocommit mode would take and drop the WAL's
    /// read lock (a `fcntl` call) per key.
    static func storedKeys(among keys: [SHA1.Digest], connection: Connection) throws -> Set<SHA1.Digest> {
        guard !keys.isEmpty else { return [] }
        return try connection.transaction(.deferred) {
            let lookup = try connection.cachedStatement(Blobs.existsSQL)
            var stored: Set<SHA1.Digest> = []
            for key in keys {
                key.withUnsafeBytes { lookup.bind($0, at: 1) }
                defer { lookup.reset() }
                if try lookup.step() { stored.insert(key) }
            }
            return stored
        }
    }

    /// Stores the bytes of `body` (`Data`, `[UInt8]`, …); see the `UnsafeRawBufferPointer` variant.
    func store(_ body: some ContiguousBytes) throws -> BlobReference {
        try body.withUnsafeBytes { try store($0) }
    }

    /// The compressed form of a body is kept across calls up to this capacity.
    private static let retainedBufferCapacity = 1 << 20

    /// Adds a link to the blob with `key`, if there is one.
    ///
    /// A lookup then an update by id: measured ~1 µs together, against ~3.3 µs for one
    /// `UPDATE … WHERE key = ? RETURNING …` (SQLite buffers RETURNING rows in a temporary table).
    private func addLink(to key: SHA1.Digest) throws(DatabaseError) -> BlobReference? {
        let lookup = try connection.cachedStatement(Blobs.byKeySQL)
        key.withUnsafeBytes { lookup.bind($0, at: 1) }
        guard try lookup.step() else {
            lookup.reset()
            return nil
        }
        let reference = BlobReference(
            rowID: lookup.int64(at: 0), key: key, size: lookup.int(at: 1), decompressedSize: lookup.int(at: 2))
        lookup.reset()
        let update = try connection.cachedStatement(Blobs.linkSQL)
        update.bind(reference.rowID, at: 1)
        try update.run()
        return reference
    }

    /// Compresses `body` into `compressionBuffer`; `true` when the result is smaller than the body
    /// (the same steps as ``LogStore/BlobCompressor``, so its measurements hold for the store).
    /// A body whose sample looks already compressed is not tried (``Compressibility``).
    private func compressIfSmaller(_ body: UnsafeRawBufferPointer) throws -> Bool {
        guard settings.isCompressionEnabled, !Compressibility.looksCompressed(body) else {
            compressionBuffer.removeAll(keepingCapacity: true)
            return false
        }
        return try compressor.compressIfSmaller(body, into: &compressionBuffer)
    }

    /// Inserts a new blob's row, writing its file first when it is too large to be inline.
    private func insert(
        key: SHA1.Digest, stored: UnsafeRawBufferPointer, compression: Compression, decompressedSize: Int
    ) throws -> Int64 {
        let isInline = blobsDirectory == nil || stored.count <= settings.inlineLimit
        if !isInline { try writeFile(stored, key: key) }
        let statement = try connection.cachedStatement(Blobs.insertSQL)
        key.withUnsafeBytes { statement.bind($0, at: 1) }
        statement.bind(stored.count, at: 2)
        statement.bind(decompressedSize, at: 3)
        statement.bind(compression.rawValue, at: 4)
        if isInline { statement.bind(stored, at: 5) } else { statement.bindNull(at: 5) }
        try statement.run()
        let rowID = connection.lastInsertRowID
        history?.record(.blob, .insert, id: rowID)
        return rowID
    }

    // MARK: Unlinking

    /// Removes one link from the blob with row id `rowID`; the last link deletes the row, and
    /// its file once the transaction commits (``didCommit()``).
    ///
    /// Must run inside the caller's transaction.
    ///
    /// - Returns: the links left (0 when the blob was deleted), or `nil` when there is no such blob.
    @discardableResult
    func unlink(rowID: Int64) throws(DatabaseError) -> Int? {
        let lookup = try connection.cachedStatement(Blobs.linksByIDSQL)
        lookup.bind(rowID, at: 1)
        return try removeLink(lookup)
    }

    /// Removes one link from the blob with `key`; see ``unlink(rowID:)``.
    @discardableResult
    func unlink(key: SHA1.Digest) throws(DatabaseError) -> Int? {
        let lookup = try connection.cachedStatement(Blobs.linksByKeySQL)
        key.withUnsafeBytes { lookup.bind($0, at: 1) }
        return try removeLink(lookup)
    }

    /// Removes a link from the blob `lookup` finds (`id, link_count, key, data IS NULL`).
    private func removeLink(_ lookup: Statement) throws(DatabaseError) -> Int? {
        assert(connection.isInTransaction, "BlobStore.unlink runs inside the caller's transaction")
        guard try lookup.step() else {
            lookup.reset()
            return nil
        }
        let rowID = lookup.int64(at: 0)
        let links = lookup.int(at: 1) - 1
        let key = SHA1.Digest(bytes: lookup.bytes(at: 2))
        let hasFile = lookup.int64(at: 3) != 0
        lookup.reset()
        if links > 0 {
            let update = try connection.cachedStatement(Blobs.unlinkSQL)
            update.bind(rowID, at: 1)
            try update.run()
            return links
        }
        if let history, let fields = history.tombstoneFields[.blob] {
            // The preserved fields come back from the delete itself.
            let delete = try connection.cachedStatement("DELETE FROM blobs WHERE id = ? RETURNING id\(fields.returningSQL)")
            delete.bind(rowID, at: 1)
            defer { delete.reset() }
            while try delete.step() { history.recordDeletion(.blob, of: delete, keeping: fields) }
        } else {
            let delete = try connection.cachedStatement(Blobs.deleteSQL)
            delete.bind(rowID, at: 1)
            try delete.run()
            history?.record(.blob, .delete, id: rowID)
        }
        // A key that is not 20 bytes names no file this store could have written.
        if hasFile, let key { pendingDeletions.insert(key) }
        return 0
    }

    // MARK: After the transaction

    /// Call right after the caller's transaction committed: deletes the files of the blobs it
    /// deleted.
    ///
    /// The transaction stays committed whatever this returns. A file that cannot be deleted
    /// stays as an orphan for ``removeOrphans(directory:connection:olderThan:now:)``.
    ///
    /// - Returns: the failures, to report (empty when every file went).
    func didCommit() -> [LogStoreError] {
        createdFiles.removeAll()
        guard !pendingDeletions.isEmpty else { return [] }
        let keys = pendingDeletions
        pendingDeletions.removeAll()
        return deleteFilesWithoutRows(keys)
    }

    /// Call right after the caller's transaction rolled back: deletes the files written for the
    /// blobs it had inserted, and keeps the files of the blobs it had deleted.
    ///
    /// - Returns: the failures, to report (empty when every file went).
    func didRollBack() -> [LogStoreError] {
        pendingDeletions.removeAll()
        guard !createdFiles.isEmpty else { return [] }
        let keys = createdFiles
        createdFiles.removeAll()
        return deleteFilesWithoutRows(keys)
    }

    /// Deletes the files of `keys` unless a row still names the file. The check is what keeps
    /// a rollback safe on a store whose journal is off (`.unsafe`: SQLite's ROLLBACK is then
    /// undefined and the row may survive); it costs one lookup per deleted file.
    private func deleteFilesWithoutRows(_ keys: Set<SHA1.Digest>) -> [LogStoreError] {
        guard let blobsDirectory else { return [] }
        var failures: [LogStoreError] = []
        for key in keys {
            do {
                guard try !Self.hasFileRow(key, connection: connection) else { continue }
            } catch {
                failures.append(.database(error))  // keep the file: it may still be needed
                continue
            }
            let url = Self.fileURL(for: key, inBlobsDirectory: blobsDirectory)
            if let error = SystemCall.errnoOf({ Glibc.unlink(url.path) }), error.code != ENOENT {
                failures.append(.fileSystem(url, operation: "delete", errno: error.code))
            }
        }
        return failures
    }

    /// Whether a row of `blobs` keeps `key`'s bytes in a file.
    static func hasFileRow(_ key: SHA1.Digest, connection: Connection) throws(DatabaseError) -> Bool {
        let statement = try connection.cachedStatement(Blobs.isInFileSQL)
        defer { statement.reset() }
        key.withUnsafeBytes { statement.bind($0, at: 1) }
        return try statement.step()
    }
}

@available(*, unavailable, message: "BlobStore is confined to the writer thread")
extension BlobStore: Sendable {}
