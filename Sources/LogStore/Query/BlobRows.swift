import Foundation

/// Reading `blobs` rows: the listing's summaries and one body by its key.
enum BlobRows {
    /// The body stored under the hex `key`, read by ``BlobStore`` (inline or from its file,
    /// decompressed and checked), or `nil` when no body has that key.
    static func body(
        forKey key: String, connection: Connection, files: (any StoredBlobFiles)?, location: URL, maxSize: Int
    ) throws -> Data? {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithTasks else {
            // A read-only store from before bodies existed: no key is stored, but a
            // malformed one is still an error, never a path.
            guard SHA1.Digest(hex: key) != nil else {
                throw LogStoreError.invalidArgument("blob key must be 40 lowercase hex characters")
            }
            return nil
        }
        return try BlobStore.data(forKey: key, connection: connection, files: files, location: location, maxSize: maxSize)
    }

    /// The stored bodies, largest (as stored) first, at most `limit` of them; none before schema 2.
    static func list(limit: Int, connection: Connection) throws -> [BlobSummary] {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithTasks else { return [] }
        let statement = try connection.prepare(Blobs.largestSQL)
        statement.bind(Int64(limit), at: 1)
        var blobs: [BlobSummary] = []
        while try statement.step() {
            blobs.append(BlobSummary(
                key: statement.string(at: 0), size: statement.int64(at: 1), decompressedSize: statement.int64(at: 2),
                isCompressed: statement.int64(at: 3) != BlobStore.Compression.none.rawValue,
                linkCount: statement.int(at: 4), storage: statement.int64(at: 5) != 0 ? .file : .inline))
        }
        return blobs
    }
}
