import Foundation
import Synchronization

/// An archive (``ArchiveFormat``) opened for reading. The file comes from outside, so everything is
/// checked before it is used: the document is opened read-only, immutable and hardened
/// (``Connection/hardenForUntrustedFile(_:maxLength:)``); its schema must be exactly the format's;
/// the info record is bounded and must agree with the rows; chunks and bodies are verified against
/// their checksums when read; decompression stops at the size the record gives. Every failure is a
/// ``LogStoreError``: the file is never trusted, and nothing is written outside the extraction
/// directory.
final class ArchiveFile: StoredBlobFiles, Sendable {
    let url: URL
    let info: ArchiveInfo
    /// `nil` once closed: a closed connection's handle is freed, so it must never be reached.
    private let connection: Mutex<Connection?>
    private let blobFiles: [SHA1.Digest: ArchiveInfo.BlobFile]

    init(url: URL, limits: ArchiveLimits) throws {
        self.url = url
        try Self.checkIsFile(url)
        let connection = try Self.translating(url) { () throws -> Connection in
            let escaped = url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? url.path
            // `immutable`: no lock, no journal, no WAL file is ever looked for or created beside it.
            let connection = try Connection(path: "file:\(escaped)?mode=ro&immutable=1", mode: .readOnly)
            let longest = max(limits.maximumInfoSize, limits.maximumBodySize, Self.maximumStoredChunkSize)
            try connection.hardenForUntrustedFile(.tablesOnly, maxLength: Int32(clamping: longest))
            return connection
        }
        let info = try Self.translating(url) { try Self.readInfo(connection, url: url, limits: limits) }
        var blobFiles: [SHA1.Digest: ArchiveInfo.BlobFile] = [:]
        for entry in info.blobFiles {
            guard let key = SHA1.Digest(hex: entry.key) else {
                throw LogStoreError.storeInvalid(url, reason: "its info record names a body by something that is not a SHA-1 key")
            }
            blobFiles[key] = entry
        }
        try Self.translating(url) { try Self.checkRows(connection, info: info, blobFiles: blobFiles, url: url) }
        self.info = info
        self.blobFiles = blobFiles
        self.connection = Mutex(connection)
    }

    func close() {
        connection.withLock { state in
            state?.close()
            state = nil
        }
    }

    // MARK: The database

    /// Writes the database into the new file at `destination`, chunk by chunk on every core, each
    /// checked against its CRC-32 and its recorded size before a byte of it is written.
    func extractDatabase(to destination: URL) throws {
        let descriptor: Int32
        switch Files.openDescriptor(destination.path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw LogStoreError.fileSystem(destination, operation: "create", errno: error.code)
        }
        defer { Glibc.close(descriptor) }
        try ChunkWorkers.forEach(info.chunks.count, makeState: { try ZlibDecompressor() }) { decompressor, index in
            let bytes = try chunk(index, decompressor: decompressor)
            let offset = off_t(index) * off_t(ArchiveFormat.chunkSize)
            if let error = bytes.withUnsafeBytes({ raw in Self.writeAll(raw, to: descriptor, at: offset) }) {
                throw LogStoreError.fileSystem(destination, operation: "write", errno: error)
            }
        }
        // No fsync: the copy is thrown away at close, and after a crash by the next open, so
        // forcing it to disk (hundreds of MB for a large store) would buy nothing.
    }

    /// Chunk `index`, verified and decompressed.
    private func chunk(_ index: Int, decompressor: ZlibDecompressor) throws -> [UInt8] {
        let entry = info.chunks[index]
        let stored = try read("database_chunks", where: "id", is: .integer(Int64(index)), size: entry.storedSize) {
            "database chunk \(index)"
        }
        guard stored.withUnsafeBytes({ crc32Checksum($0) }) == entry.crc32 else {
            throw damaged("database chunk \(index) fails its checksum")
        }
        do {
            let bytes = try decompressor.decompress(stored, maxOutputSize: entry.size, expectedSize: entry.size)
            guard bytes.count == entry.size else {
                throw damaged("database chunk \(index) decompresses to \(bytes.count) bytes, its record says \(entry.size)")
            }
            return bytes
        } catch ZlibError.outputLimitExceeded {
            throw damaged("database chunk \(index) decompresses to more than the \(entry.size) bytes its record says")
        } catch let error as ZlibError {
            throw damaged("database chunk \(index) is not valid zlib data (\(error))").keeping(cause: error)
        }
    }

    // MARK: Bodies

    func storedBytes(of key: SHA1.Digest, size: Int, invalid: (String) -> LogStoreError) throws -> Data {
        guard let entry = blobFiles[key] else { throw invalid("the archive does not hold its bytes") }
        guard entry.size == size else { throw invalid("the archive holds \(entry.size) bytes of it, its row records \(size)") }
        let stored = try read("blobs", where: "key", is: .text(key.hex), size: size) { "body \(key.hex)" }
        guard stored.withUnsafeBytes({ crc32Checksum($0) }) == entry.crc32 else {
            throw invalid("its bytes in the archive fail their checksum")
        }
        return stored
    }

    func isMissing(_ key: SHA1.Digest) -> Bool { false }

    // MARK: Reading rows

    /// One blob column (`data` of the row `table.column = value`), which must be exactly `size`
    /// bytes: its length is read first, so a row larger than its record says is refused without
    /// reading it. SQLite's failures (a broken page chain shows only when the value is read) are
    /// reported as the archive's.
    private func read(
        _ table: String, where column: String, is value: DatabaseValue, size: Int, _ what: () -> String
    ) throws -> Data {
        try Self.translating(url) {
            try connection.withLock { state in
                guard let connection = state else { throw LogStoreError.closed }
                let length = try connection.integer("SELECT length(data) FROM \(table) WHERE \(column) = ?", [value])
                guard let length else { throw damaged("\(what()) is missing") }
                guard length == size else { throw damaged("\(what()) holds \(length) bytes, its record says \(size)") }
                let statement = try connection.cachedStatement("SELECT data FROM \(table) WHERE \(column) = ?")
                defer { statement.reset() }
                try statement.bind([value])
                guard try statement.step() else { throw damaged("\(what()) is missing") }
                return Data(statement.bytes(at: 0))
            }
        }
    }

    private func damaged(_ reason: String) -> LogStoreError {
        LogStoreError.storeInvalid(url, reason: reason)
    }

    // MARK: Checks at open

    /// A stored chunk is at most zlib's bound for a chunk that does not compress (deflateBound).
    static let maximumStoredChunkSize = ArchiveFormat.chunkSize + ArchiveFormat.chunkSize / 1000 + 1024

    /// A regular file starting "SQLite format 3\0": anything else is not an archive (and SQLite
    /// is not even asked). Opened without blocking (a FIFO put in its place cannot hang the open)
    /// and checked on the descriptor, not the path.
    private static func checkIsFile(_ url: URL) throws {
        let descriptor: Int32
        switch Files.openDescriptor(url.path, O_RDONLY | O_NONBLOCK | O_NOCTTY) {
        case .success(let opened): descriptor = opened
        case .failure(let error) where error.code == ENOENT: throw LogStoreError.fileDoesntExist(url)
        case .failure(let error) where error.code == EBUSY && HeldDatabaseFiles.contains(path: url.path):
            throw LogStoreError.storeInvalid(
                url, reason: "it is the database of a store this process has open, not an archive; open the store's directory instead")
        case .failure(let error): throw LogStoreError.fileSystem(url, operation: "open", errno: error.code)
        }
        defer { Glibc.close(descriptor) }
        var status = stat()
        if let error = SystemCall.errnoOf({ fstat(descriptor, &status) }) {
            throw LogStoreError.fileSystem(url, operation: "inspect", errno: error.code)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw LogStoreError.storeInvalid(url, reason: "an archive is a file; this is not one")
        }
        var header = [UInt8](repeating: 0, count: 16)
        let count: Int
        switch SystemCall.valueOrErrno({ header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 16, 0) } }) {
        case .success(let read): count = read
        case .failure(let error): throw LogStoreError.fileSystem(url, operation: "read", errno: error.code)
        }
        guard count == 16, header == Array("SQLite format 3\0".utf8) else {
            throw LogStoreError.storeInvalid(url, reason: "it is not a SQLite file, so not a LogStore archive")
        }
    }

    private static func readInfo(_ connection: Connection, url: URL, limits: ArchiveLimits) throws -> ArchiveInfo {
        let invalid = { (reason: String) in LogStoreError.storeInvalid(url, reason: reason) }
        guard try connection.applicationID() == ArchiveFormat.applicationID else {
            throw invalid("it is a SQLite file, not a LogStore archive")
        }
        let format = Int(try connection.userVersion() ?? 0)
        guard format <= ArchiveFormat.version else {
            throw LogStoreError.unsupportedVersion(found: .archiveFormat(format), supported: .archiveFormat(ArchiveFormat.version))
        }
        guard format >= 1 else { throw invalid("it has no archive format version") }
        let objects = try Set(connection.strings("SELECT type || ' ' || name FROM sqlite_schema"))
        guard objects == ArchiveFormat.expectedObjects else {
            let extra = objects.subtracting(ArchiveFormat.expectedObjects).sorted()
            throw invalid(extra.isEmpty ? "tables are missing" : "it holds what an archive never does: \(extra.joined(separator: ", "))")
        }
        guard try connection.strings("SELECT sql FROM sqlite_schema WHERE type = 'table' ORDER BY name") == expectedTableSQL.get() else {
            throw invalid("its tables are not defined as an archive's")
        }
        // Read under its own bound, so SQLite refuses an oversized record before loading it (the
        // connection's usual bound is the largest body's).
        let previousLimit = connection.setLengthLimit(Int32(clamping: limits.maximumInfoSize))
        defer { _ = connection.setLengthLimit(previousLimit) }
        let tooLong = invalid("its info record is more than the \(limits.maximumInfoSize) bytes allowed")
        let measured = Result { () throws(DatabaseError) -> Int64? in
            try connection.integer("SELECT length(CAST(json AS BLOB)) FROM archive_info WHERE id = 1")
        }
        if case .failure(let error) = measured, error.isTooBig { throw tooLong }
        guard let length = try measured.get() else { throw invalid("its info record is missing") }
        guard length <= limits.maximumInfoSize else { throw tooLong }
        let json = try connection.text("SELECT json FROM archive_info WHERE id = 1") ?? ""
        let info: ArchiveInfo
        do {
            info = try StoreJSON.decoder.decode(ArchiveInfo.self, from: Data(json.utf8))
        } catch {
            throw invalid("its info record is not valid (\(error))").keeping(cause: error)
        }
        try check(info, format: format, limits: limits, invalid: invalid)
        return info
    }

    /// The info record's claims, each against the others and the limits.
    private static func check(
        _ info: ArchiveInfo, format: Int, limits: ArchiveLimits, invalid: (String) -> LogStoreError
    ) throws {
        guard info.formatVersion == format else { throw invalid("its info record and its file disagree on the format version") }
        guard info.schemaVersion <= Migrations.latestVersion else {
            throw LogStoreError.unsupportedVersion(found: .schema(info.schemaVersion), supported: .schema(Migrations.latestVersion))
        }
        guard info.schemaVersion >= Migrations.firstArchiveVersion else {
            throw invalid("its database has schema \(info.schemaVersion); archives start at \(Migrations.firstArchiveVersion)")
        }
        guard info.databaseSize >= 0, info.blobFileSize >= 0 else { throw invalid("its info record gives negative sizes") }
        // Added with a check: two claims near Int64.max would otherwise trap.
        let (content, overflows) = info.databaseSize.addingReportingOverflow(info.blobFileSize)
        guard !overflows, content <= limits.maximumContentSize else {
            throw invalid("it claims \(overflows ? "more than \(Int64.max)" : "\(content)") bytes of content, more than the \(limits.maximumContentSize) allowed")
        }
        let chunkSize = Int64(ArchiveFormat.chunkSize)
        guard Int64(info.chunks.count) == (info.databaseSize + chunkSize - 1) / chunkSize, info.databaseSize > 0 else {
            throw invalid("its info record's chunks do not make up its database size")
        }
        for (index, chunk) in info.chunks.enumerated() {
            let expected = index == info.chunks.count - 1 ? Int(info.databaseSize - Int64(index) * chunkSize) : ArchiveFormat.chunkSize
            guard chunk.size == expected, chunk.storedSize > 0, chunk.storedSize <= maximumStoredChunkSize else {
                throw invalid("its info record gives chunk \(index) impossible sizes")
            }
        }
        // Summed with a check: with a raised maximumBodySize, many large claims could overflow.
        var bodyBytes: Int64? = 0
        for entry in info.blobFiles {
            guard entry.size >= 0, entry.size <= limits.maximumBodySize, let sum = bodyBytes else { bodyBytes = nil; break }
            let (next, overflows) = sum.addingReportingOverflow(Int64(entry.size))
            bodyBytes = overflows ? nil : next
        }
        guard bodyBytes == info.blobFileSize else { throw invalid("its info record gives its bodies impossible sizes") }
        // Every message, task, body and session takes bytes of the database: more of them than
        // bytes is a record that lies.
        let counts = [info.messageCount, info.taskCount, info.blobCount, info.sessions.count]
        guard counts.allSatisfy({ $0 >= 0 && Int64($0) <= info.databaseSize }) else {
            throw invalid("its info record gives impossible counts")
        }
    }

    /// The rows must be exactly those the record describes.
    private static func checkRows(
        _ connection: Connection, info: ArchiveInfo, blobFiles: [SHA1.Digest: ArchiveInfo.BlobFile], url: URL
    ) throws {
        let invalid = { (reason: String) in LogStoreError.storeInvalid(url, reason: reason) }
        guard blobFiles.count == info.blobFiles.count else { throw invalid("its info record names a body twice") }
        let chunkRows = try connection.integers("""
            SELECT count(*) FROM database_chunks UNION ALL SELECT min(id) FROM database_chunks
            UNION ALL SELECT max(id) FROM database_chunks
            """)
        guard chunkRows == [Int64(info.chunks.count), 0, Int64(info.chunks.count - 1)] else {
            throw invalid("its database chunks are not those its info record lists")
        }
        let statement = try connection.prepare("SELECT key, length(data) FROM blobs")
        var seen = 0
        while try statement.step() {
            guard let key = SHA1.Digest(hex: statement.string(at: 0)), let entry = blobFiles[key] else {
                throw invalid("it holds a body its info record does not list")
            }
            guard entry.size == statement.int(at: 1) else { throw invalid("body \(entry.key) is not the size its record says") }
            seen += 1
        }
        guard seen == blobFiles.count else { throw invalid("bodies its info record lists are missing") }
    }

    /// The table definitions ``ArchiveFormat/schema`` makes, as SQLite stores them, by name.
    private static let expectedTableSQL = Result { () throws -> [String] in
        let connection = try Connection(path: ":memory:", mode: .readWrite(create: true))
        defer { connection.close() }
        try connection.execute(ArchiveFormat.schema)
        return try connection.strings("SELECT sql FROM sqlite_schema WHERE type = 'table' ORDER BY name")
    }

    /// Turns SQLite's failures on the archive (or on `what` of it) into errors that name it.
    static func translating<T>(_ url: URL, what: String = "the archive", _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.isCorrupt {
            throw LogStoreError.storeInvalid(url, reason: "\(what) is damaged (\(error.message))", cause: error)
        } catch let error as DatabaseError where error.isTooBig {
            throw LogStoreError.storeInvalid(
                url, reason: "\(what) holds a value larger than its limits allow (\(error.message))", cause: error)
        } catch let error as DatabaseError where error.isCannotOpen {
            throw LogStoreError.fileSystem(url, operation: "open", errno: error.systemErrno)
        } catch let error as DatabaseError {
            throw LogStoreError.database(error)
        }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: off_t) -> Int32? {
        var done = 0
        while done < bytes.count {
            switch SystemCall.valueOrErrno({ pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, offset + off_t(done)) }) {
            case .success(let written): done += written
            case .failure(let error): return error.code
            }
        }
        return nil
    }
}
