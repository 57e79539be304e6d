import Foundation

/// The layout of a store directory: the database and its WAL files (`blobs/` is
/// ``BlobStore``'s), created owner-only: logs hold secrets.
enum StoreFiles {
    static let databaseName = "logs.sqlite"

    static func databaseURL(in directory: URL) -> URL {
        directory.appendingPathComponent(databaseName)
    }

    /// The database's write-ahead log (`logs.sqlite-wal`).
    static func walURL(in directory: URL) -> URL {
        directory.appendingPathComponent(databaseName + "-wal")
    }

    /// The WAL's shared-memory index (`logs.sqlite-shm`).
    static func sharedMemoryURL(in directory: URL) -> URL {
        directory.appendingPathComponent(databaseName + "-shm")
    }

    /// Creates `url` as a directory with mode 0700 (parents as needed, also 0700).
    static func createDirectory(_ url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LogStoreError.fileSystem(url, operation: "create the directory", errno: Files.errno(of: error))
        }
    }
}
