import Foundation
import Glibc

/// The store's size as read on a connection (the database's pages and the blob files' bytes,
/// `blob_totals`) and as the file system counts it. Both the writer's size watch (after
/// commits) and the sweep (before and between its rounds) judge the store by these, so they sit
/// below both.
enum StoreSize {
    /// Bytes of data in the database (pages in use, not the free ones) plus the blob files.
    static func usedBytes(_ connection: Connection) throws -> Int64 {
        let pages = try connection.pageCount() ?? 0
        let free = try connection.freelistCount() ?? 0
        let pageSize = try connection.pageSize() ?? 4096
        let files = try connection.integer(Blobs.fileBytesSQL) ?? 0
        return (pages - free) * pageSize + files
    }

    /// Limits under which the size sweep judges the whole footprint (``judgedBytes(_:sizeLimit:)``).
    static let smallStoreLimit: Int64 = 32_000_000

    /// The size the size sweep judges: ``usedBytes(_:)``, and for a limit under
    /// ``smallStoreLimit`` the free pages and the WAL too. In a large store they are a small share
    /// of the limit, and counting them started sweeps that found nothing to trim; in a small one
    /// the WAL readers keep from wrapping (about 2 MB under full load) and the pages freed by the
    /// last step are a quarter of an 8 MB limit, so only counting them holds it.
    static func judgedBytes(_ connection: Connection, sizeLimit: Int64) throws -> Int64 {
        let used = try usedBytes(connection)
        guard sizeLimit < smallStoreLimit else { return used }
        let free = try connection.freelistCount() ?? 0
        let pageSize = try connection.pageSize() ?? 4096
        return used + free * pageSize + Files.fileSize(URL(fileURLWithPath: connection.path + "-wal"))
    }

    /// Bytes of blobs as stored, inline and in files.
    static func blobBytes(_ connection: Connection) throws -> Int64 {
        try connection.integer(Blobs.storedBytesSQL) ?? 0
    }

    /// The bytes the store's files take on disk (allocated blocks, as `du` counts them): the
    /// database, its WAL and shared memory, the manifest and everything in `blobs/`.
    /// - Throws: ``LogStoreError/fileSystem(_:operation:errno:)`` when a directory cannot be
    ///   listed (a missing one counts as empty): a size of 0 would mislead the sweep's report.
    static func diskUsage(of directory: URL) throws -> Int64 {
        func allocated(_ path: String) -> Int64 {
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
            return Int64(info.st_blocks) * 512
        }
        var total: Int64 = 0
        for name in try Files.directoryEntries(directory) {
            total += allocated(directory.appendingPathComponent(name).path)
        }
        let blobs = BlobStore.blobsDirectory(in: directory)
        for name in try Files.directoryEntries(blobs) {
            total += allocated(blobs.appendingPathComponent(name).path)
        }
        return total
    }
}
