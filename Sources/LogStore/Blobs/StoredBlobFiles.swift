import Foundation

/// Where the bytes of the blobs kept outside the database live: a store's `blobs/` directory,
/// or an opened archive's `blobs` table. Each gives a blob's bytes as stored (compressed or not,
/// as its row says), exactly `size` of them, or throws.
protocol StoredBlobFiles: Sendable {
    /// The stored bytes of the blob `key`, which must be exactly `size` bytes.
    ///
    /// - Throws: `invalid(reason)` when they are missing or damaged;
    ///   ``LogStoreError/fileSystem(_:operation:errno:)`` when they cannot be read.
    func storedBytes(of key: SHA1.Digest, size: Int, invalid: (String) -> LogStoreError) throws -> Data

    /// Whether the blob's bytes are gone altogether (a sweep removed them after a reader's
    /// snapshot named them), as opposed to damaged.
    func isMissing(_ key: SHA1.Digest) -> Bool
}

/// A store's `blobs/` directory: one file per key.
struct BlobDirectory: StoredBlobFiles {
    /// The store directory (the one holding `blobs/`).
    let directory: URL

    func storedBytes(of key: SHA1.Digest, size: Int, invalid: (String) -> LogStoreError) throws -> Data {
        try BlobStore.readFile(BlobStore.fileURL(for: key, in: directory), size: size, invalid: invalid)
    }

    func isMissing(_ key: SHA1.Digest) -> Bool {
        !Files.exists(BlobStore.fileURL(for: key, in: directory))
    }
}
