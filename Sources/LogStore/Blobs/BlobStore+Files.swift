import Foundation
import Glibc

// The file side of the blob store: writing blob files, reading bodies back, removing orphans.
//
// `blobs/` holds, by name:
// - `<40 lowercase hex>`: a blob's stored bytes (compressed or not, as its row says), mode 0600;
// - `.tmp-…`: a file being written (then renamed to its key), or an orphan being deleted;
// - nothing else that this library writes.

extension BlobStore {
    /// Names in `blobs/` starting with this are temporary files.
    static let temporaryPrefix = ".tmp-"

    /// The name of the blob files' directory inside a store's directory.
    static let directoryName = "blobs"

    /// The `blobs/` directory of the store at `directory`.
    static func blobsDirectory(in directory: URL) -> URL {
        directory.appendingPathComponent(directoryName, isDirectory: true)
    }

    /// The file of the blob `key` in the store at `directory` (which exists only for blobs
    /// stored as files).
    static func fileURL(for key: SHA1.Digest, in directory: URL) -> URL {
        fileURL(for: key, inBlobsDirectory: blobsDirectory(in: directory))
    }

    static func fileURL(for key: SHA1.Digest, inBlobsDirectory blobsDirectory: URL) -> URL {
        blobsDirectory.appendingPathComponent(key.hex, isDirectory: false)
    }

    // MARK: Writing

    /// Writes `bytes` as the file of `key`: to a temporary file in `blobs/` (0600), synced per
    /// ``Settings/durability``, renamed to the key, then the directory synced, so a file under a
    /// key name is always whole. Records the file for ``didRollBack()``.
    func writeFile(_ bytes: UnsafeRawBufferPointer, key: SHA1.Digest) throws {
        guard let blobsDirectory else { preconditionFailure("an in-memory blob store writes no files") }
        let isDurable = settings.durability == .durable
        let hex = key.hex
        let destination = Self.fileURL(for: key, inBlobsDirectory: blobsDirectory)
        let (descriptor, temporary) = try createTemporaryFile(named: hex)
        var failure: (operation: String, errno: Int32)?
        if let error = SystemCall.writeAll(bytes, to: descriptor) {
            failure = ("write", error.code)
        } else if isDurable, let error = SystemCall.errnoOf({ fsync(descriptor) }) {
            failure = ("sync", error.code)
        }
        if let error = SystemCall.errnoOf(retryingOnInterrupt: false, { close(descriptor) }), failure == nil {
            failure = ("write", error.code)
        }
        if failure == nil, let error = SystemCall.errnoOf({ rename(temporary.path, destination.path) }) {
            failure = ("rename a file to", error.code)
        }
        if let failure {
            Glibc.unlink(temporary.path)
            throw LogStoreError.fileSystem(destination, operation: failure.operation, errno: failure.errno)
        }
        // The file is in place: from here a rollback must delete it, unless it is the file of a
        // blob this transaction deleted and is now storing again (committed before, so it stays).
        if pendingDeletions.remove(key) == nil { createdFiles.insert(key) }
        // The rename must be on disk before the row that relies on it can commit.
        if isDurable { try Self.syncDirectory(blobsDirectory) }
    }

    /// Creates a new temporary file for the blob `hex` in `blobs/`, creating the directory when
    /// missing (on first use, or after something removed it).
    private func createTemporaryFile(named hex: String) throws -> (descriptor: Int32, url: URL) {
        guard let blobsDirectory else { preconditionFailure("an in-memory blob store writes no files") }
        if !isBlobsDirectoryReady { try createBlobsDirectory() }
        var recreated = false
        while true {
            let url = blobsDirectory.appendingPathComponent(Self.temporaryName(for: hex), isDirectory: false)
            let opened = Files.openDescriptor(url.path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW)
            let code: Int32
            switch opened {
            case .success(let descriptor): return (descriptor, url)
            case .failure(let error): code = error.code
            }
            switch code {
            case EEXIST:
                continue  // a random name taken (vanishingly rare): try another
            case ENOENT where !recreated:
                recreated = true
                isBlobsDirectoryReady = false
                try createBlobsDirectory()
            default:
                throw LogStoreError.fileSystem(url, operation: "create", errno: code)
            }
        }
    }

    /// A fresh temporary name for the blob `hex`.
    private static func temporaryName(for hex: String) -> String {
        temporaryPrefix + hex + "-" + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Creates `blobs/` (0700) if it does not exist.
    private func createBlobsDirectory() throws {
        guard let blobsDirectory else { return }
        if let error = SystemCall.errnoOf({ mkdir(blobsDirectory.path, 0o700) }) {
            let code = error.code
            guard code == EEXIST else {
                throw LogStoreError.fileSystem(blobsDirectory, operation: "create the directory", errno: code)
            }
            guard Files.isDirectory(blobsDirectory) else {
                throw LogStoreError.fileSystem(blobsDirectory, operation: "create the directory", errno: ENOTDIR)
            }
        } else if settings.durability == .durable, let directory {
            // The new directory's own entry must reach the disk too.
            try Self.syncDirectory(directory)
        }
        isBlobsDirectoryReady = true
    }

    /// Syncs a directory, so the entries created or renamed in it survive a power loss.
    private static func syncDirectory(_ url: URL) throws {
        let descriptor: Int32
        switch Files.openDescriptor(url.path, O_RDONLY | O_DIRECTORY) {
        case .success(let opened): descriptor = opened
        case .failure(let error):
            throw LogStoreError.fileSystem(url, operation: "open the directory", errno: error.code)
        }
        defer { close(descriptor) }
        if let error = SystemCall.errnoOf({ fsync(descriptor) }) {
            throw LogStoreError.fileSystem(url, operation: "sync the directory", errno: error.code)
        }
    }

    // MARK: Reading

    /// Reads the body stored under `hex`, for readers.
    ///
    /// The key is validated before anything else is touched; the stored bytes are read from the
    /// row or the file, decompressed within the size the row records, and checked against the
    /// key (SHA-1), so damaged storage is reported and never returned.
    ///
    /// - Parameters:
    ///   - hex: the key: exactly 40 lowercase hexadecimal characters.
    ///   - connection: a connection to the store's database (a reader's, or the writer's
    ///     between transactions).
    ///   - directory: the store directory; `nil` for an in-memory store.
    ///   - maxSize: the largest body (decompressed) the caller accepts.
    /// - Returns: the body, or `nil` when no blob has this key.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a malformed key (the database and
    ///   the file system are not touched) or a body larger than `maxSize`;
    ///   ``LogStoreError/storeInvalid(_:reason:)``, naming the blob, when its row, its file or its
    ///   bytes are damaged (missing or resized file, bad compressed data, a size other than the
    ///   recorded one, bytes that do not hash to the key); ``LogStoreError/fileSystem(_:operation:errno:)``
    ///   when the file cannot be read; ``LogStoreError/database(_:)``.
    static func data(forKey hex: String, connection: Connection, directory: URL?, maxSize: Int) throws -> Data? {
        try data(
            forKey: hex, connection: connection, files: directory.map { BlobDirectory(directory: $0) },
            location: directory ?? URL(fileURLWithPath: connection.path), maxSize: maxSize)
    }

    /// Reads the body stored under `hex` as ``data(forKey:connection:directory:maxSize:)`` does,
    /// with the bytes of file-kept blobs from `files` (a store's `blobs/`, or an archive's);
    /// `location` names the store in errors.
    static func data(
        forKey hex: String, connection: Connection, files: (any StoredBlobFiles)?, location: URL, maxSize: Int
    ) throws -> Data? {
        guard let key = SHA1.Digest(hex: hex) else {
            throw LogStoreError.invalidArgument(
                "a blob key is 40 lowercase hexadecimal characters (got \(hex.utf8.count) bytes)")
        }
        let row: StoredRow?
        do {
            row = try storedRow(key, connection: connection)
        } catch {
            throw LogStoreError.database(error)
        }
        guard let row else { return nil }
        let invalid = { (reason: String) in LogStoreError.storeInvalid(location, reason: "blob \(hex): \(reason)") }

        guard let compression = Compression(rawValue: row.compression) else {
            throw invalid("unknown compression \(row.compression)")
        }
        let sizesAgree = compression == .none ? row.size == row.decompressedSize : row.size <= row.decompressedSize
        guard row.size >= 0, row.decompressedSize >= 0, sizesAgree else {
            throw invalid("its row records impossible sizes (\(row.size) stored, \(row.decompressedSize) decompressed)")
        }
        guard row.decompressedSize <= maxSize else {
            throw LogStoreError.invalidArgument(
                "blob \(hex) is \(row.decompressedSize) bytes, more than the \(maxSize) allowed")
        }
        let stored: Data
        if let inline = row.inline {
            guard inline.count == row.size else {
                throw invalid("its row holds \(inline.count) bytes and records \(row.size)")
            }
            stored = inline
        } else if let files {
            stored = try files.storedBytes(of: key, size: row.size, invalid: invalid)
        } else {
            throw invalid("its bytes are in a file, and an in-memory store has none")
        }

        switch compression {
        case .none:
            guard SHA1.hash(stored) == key else { throw invalid("its bytes do not match its key (damaged)") }
            return stored
        case .zlib:
            let decompressor = try ZlibDecompressor()
            var body = Data(capacity: row.decompressedSize)
            var hasher = SHA1()
            do {
                try decompressor.decompress(chunks: CollectionOfOne(stored), maxOutputSize: row.decompressedSize) {
                    chunk in
                    hasher.update(chunk)
                    chunk.withMemoryRebound(to: UInt8.self) { body.append($0) }
                }
            } catch ZlibError.outputLimitExceeded {
                throw invalid("it decompresses to more than the \(row.decompressedSize) bytes its row records")
            } catch let error as ZlibError {
                throw invalid("its compressed bytes are damaged (\(error))").keeping(cause: error)
            }
            guard body.count == row.decompressedSize else {
                throw invalid("it decompresses to \(body.count) bytes, its row records \(row.decompressedSize)")
            }
            guard hasher.finalize() == key else { throw invalid("its bytes do not match its key (damaged)") }
            return body
        }
    }

    /// What a reader needs from a blob's row.
    private struct StoredRow {
        var size: Int
        var decompressedSize: Int
        var compression: Int64
        /// The inline bytes; `nil` when they are in a file.
        var inline: Data?
    }

    private static func storedRow(_ key: SHA1.Digest, connection: Connection) throws(DatabaseError) -> StoredRow? {
        let statement = try connection.cachedStatement(Blobs.contentByKeySQL)
        defer { statement.reset() }
        key.withUnsafeBytes { statement.bind($0, at: 1) }
        guard try statement.step() else { return nil }
        return StoredRow(
            size: statement.int(at: 0), decompressedSize: statement.int(at: 1),
            compression: statement.int64(at: 2),
            inline: statement.isNull(at: 3) ? nil : Data(statement.bytes(at: 3)))
    }

    /// Reads a blob file that must hold exactly `size` bytes. Symbolic links and special files
    /// are refused (`O_NOFOLLOW`, and `O_NONBLOCK` so a FIFO cannot block the reader).
    static func readFile(
        _ url: URL, size: Int, invalid: (String) -> LogStoreError
    ) throws -> Data {
        let descriptor: Int32
        switch Files.openDescriptor(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) {
        case .success(let opened): descriptor = opened
        case .failure(let error):
            switch error.code {
            case ENOENT: throw invalid("its file is missing")
            case ELOOP: throw invalid("its file is a symbolic link")
            case let code: throw LogStoreError.fileSystem(url, operation: "open", errno: code)
            }
        }
        defer { close(descriptor) }
        var info = stat()
        if let error = SystemCall.errnoOf({ fstat(descriptor, &info) }) {
            throw LogStoreError.fileSystem(url, operation: "read", errno: error.code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw invalid("its file is not a regular file") }
        guard info.st_size == size else { throw invalid("its file has \(info.st_size) bytes, its row records \(size)") }
        var data = Data(count: size)
        let failure: Int32? = data.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count: Int
                switch SystemCall.valueOrErrno({
                    pread(descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                }) {
                case .success(let read): count = read
                case .failure(let error): return error.code
                }
                if count == 0 { return 0 }  // shorter than fstat said: changed under us
                offset += count
            }
            return nil
        }
        switch failure {
        case nil: return data
        case 0: throw invalid("its file shrank while it was read")
        case let code?: throw LogStoreError.fileSystem(url, operation: "read", errno: code)
        }
    }

    // MARK: Orphans

    /// Deletes what no row needs in `blobs/`, when it is older than `age`.
    ///
    /// - A file named by a key (40 lowercase hex) whose key has no row keeping its bytes in a
    ///   file: left by a crash between the file and the commit, by a rolled-back batch whose
    ///   clean-up failed, or by a deletion not done before a crash.
    /// - A temporary file (`.tmp-…`): a write or a deletion interrupted by a crash.
    /// - Anything else (other names, directories, symbolic links) is left alone and not
    ///   counted: this library never writes it, so it is not ours to delete.
    ///
    /// The age is what keeps a writer's work in progress: a writer renames a blob's file into
    /// place before its row commits, so a file younger than the longest write transaction may
    /// be one a commit is about to need. Pass minutes, not seconds. An orphan is claimed (renamed
    /// to a temporary name) before it is deleted and put back if the claimed file turns out to be
    /// young: a writer then replaced the orphan with a new copy of the same bytes for its row
    /// (any file under a key's name holds the same bytes, so putting it back loses nothing).
    ///
    /// - Parameters:
    ///   - directory: the store directory.
    ///   - connection: a connection to the store's database.
    ///   - age: files modified less than this many seconds before `now` are kept.
    ///   - now: the current time (injected by tests and the sweep's clock).
    /// - Returns: how many files were deleted and their bytes.
    /// - Throws: ``LogStoreError/fileSystem(_:operation:errno:)`` when `blobs/` cannot be listed
    ///   or a file cannot be deleted; ``LogStoreError/database(_:)``.
    static func removeOrphans(
        directory: URL, connection: Connection, olderThan age: TimeInterval, now: Date = Date()
    ) throws -> (files: Int, bytes: Int64) {
        let blobsDirectory = blobsDirectory(in: directory)
        let cutoff = now.timeIntervalSince1970 - age
        var removed = (files: 0, bytes: Int64(0))
        // The whole listing first: claiming renames files inside the directory being listed.
        for name in try Files.directoryEntries(blobsDirectory) {
            let path = blobsDirectory.appendingPathComponent(name, isDirectory: false).path
            guard let info = regularFileStatus(path), modificationTime(info) < cutoff else { continue }
            if name.hasPrefix(temporaryPrefix) {
                if let error = SystemCall.errnoOf({ Glibc.unlink(path) }) {
                    if error.code == ENOENT { continue }
                    throw LogStoreError.fileSystem(URL(fileURLWithPath: path), operation: "delete", errno: error.code)
                }
                removed.files += 1
                removed.bytes += Int64(info.st_size)
            } else if let key = SHA1.Digest(hex: name) {
                let isNeeded: Bool
                do {
                    isNeeded = try hasFileRow(key, connection: connection)
                } catch {
                    throw LogStoreError.database(error)
                }
                guard !isNeeded, let size = try deleteOrphan(at: path, in: blobsDirectory, hex: name, cutoff: cutoff)
                else { continue }
                removed.files += 1
                removed.bytes += size
            }
        }
        return removed
    }

    /// Claims the orphan at `path` and deletes it if it is still old; returns its size when deleted.
    private static func deleteOrphan(at path: String, in blobsDirectory: URL, hex: String, cutoff: Double) throws -> Int64? {
        let claimed = blobsDirectory.appendingPathComponent(temporaryName(for: hex), isDirectory: false).path
        if let error = SystemCall.errnoOf({ rename(path, claimed) }) {
            if error.code == ENOENT { return nil }  // gone already
            throw LogStoreError.fileSystem(URL(fileURLWithPath: path), operation: "rename", errno: error.code)
        }
        if let info = regularFileStatus(claimed), modificationTime(info) < cutoff {
            if let error = SystemCall.errnoOf({ Glibc.unlink(claimed) }), error.code != ENOENT {
                throw LogStoreError.fileSystem(URL(fileURLWithPath: claimed), operation: "delete", errno: error.code)
            }
            return Int64(info.st_size)
        }
        // A writer replaced the orphan between the row check and the claim: put its file back.
        if let error = SystemCall.errnoOf({ rename(claimed, path) }) {
            throw LogStoreError.fileSystem(URL(fileURLWithPath: path), operation: "restore", errno: error.code)
        }
        return nil
    }

    /// `lstat` of `path` when it is a regular file (not a link, directory or device).
    private static func regularFileStatus(_ path: String) -> stat? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return info
    }

    private static func modificationTime(_ info: stat) -> Double {
        Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}

extension BlobStore {
    /// Whether the store at `directory` has body files in `blobs/` (temporary files aside).
    static func hasFiles(in directory: URL) throws -> Bool {
        let blobs = blobsDirectory(in: directory)
        guard Files.isDirectory(blobs) else { return false }
        return try Files.directoryEntries(blobs).contains { !$0.hasPrefix(temporaryPrefix) }
    }
}
