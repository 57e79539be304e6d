import Foundation
import Synchronization

/// The archive file being written: its one connection, shared by the compressing workers under a
/// mutex (SQLite connections are confined to one thread at a time here).
final class ArchiveDocument: Sendable {
    private let connection: Mutex<Connection>
    private let url: URL

    /// Creates the archive's tables in the empty file at `url`.
    init(creatingAt url: URL) throws {
        let connection = try Connection(path: url.path, mode: .readWrite(create: false))
        // The file is a temporary one until it is complete and synced (ExportDestination), so a
        // journal and syncs on the way buy nothing. 64 KiB pages: the rows are large blobs.
        try connection.setUpScratchFile(
            pageSize: 65536, applicationID: ArchiveFormat.applicationID, version: ArchiveFormat.version)
        try connection.execute(ArchiveFormat.schema)
        self.connection = Mutex(connection)
        self.url = url
    }

    func insertChunk(_ index: Int, _ data: [UInt8]) throws {
        try writing { connection in
            let statement = try connection.cachedStatement("INSERT INTO database_chunks (id, data) VALUES (?, ?)")
            statement.bind(Int64(index), at: 1)
            data.withUnsafeBytes { statement.bind($0, at: 2) }
            try statement.run()
        }
    }

    func insertBlob(_ key: SHA1.Digest, _ data: Data) throws {
        try writing { connection in
            let statement = try connection.cachedStatement("INSERT INTO blobs (key, data) VALUES (?, ?)")
            statement.bind(key.hex, at: 1)
            data.withUnsafeBytes { statement.bind($0, at: 2) }
            try statement.run()
        }
    }

    func insertInfo(_ info: ArchiveInfo) throws {
        let json = String(decoding: try StoreJSON.compactEncoder.encode(info), as: UTF8.self)
        try writing { connection in
            try connection.run("INSERT INTO archive_info (id, json) VALUES (1, ?)", [.text(json)])
        }
    }

    /// Runs a write, with a full disk or a failed write reported as the file system's error on
    /// the archive's file, as for any file an export writes.
    private func writing(_ body: (Connection) throws -> Void) throws {
        do {
            try connection.withLock { try body($0) }
        } catch let error as DatabaseError where error.isFull {
            throw LogStoreError.fileSystem(url, operation: "write", errno: ENOSPC)
        } catch let error as DatabaseError where error.isIOError {
            throw LogStoreError.fileSystem(url, operation: "write", errno: error.systemErrno == 0 ? EIO : error.systemErrno)
        }
    }

    func close() {
        connection.withLock { $0.close() }
    }
}
