/// One stored body as ``LogStore/blobs(limit:)`` lists it: its key, sizes, links and where its
/// bytes are. Read the body itself with ``LogStore/blobData(forKey:)``.
public struct BlobSummary: Sendable, Hashable, Codable, Identifiable {
    /// Where a blob's bytes live.
    public enum Storage: String, Sendable, Hashable, Codable {
        /// In its database row.
        case inline
        /// In a file `blobs/<key>` beside the database.
        case file
    }

    /// The SHA-1 of the body, 40 lowercase hexadecimal characters.
    public var key: String
    /// Bytes as stored (compressed when that was smaller).
    public var size: Int64
    /// Bytes of the body itself.
    public var decompressedSize: Int64
    /// Whether the stored bytes are zlib-compressed.
    public var isCompressed: Bool
    /// How many references from tasks (request and response bodies) share it.
    public var linkCount: Int
    /// Inline in the database or a file.
    public var storage: Storage

    /// The key.
    public var id: String { key }

    /// Creates a summary.
    public init(key: String, size: Int64, decompressedSize: Int64, isCompressed: Bool, linkCount: Int, storage: Storage) {
        self.key = key
        self.size = size
        self.decompressedSize = decompressedSize
        self.isCompressed = isCompressed
        self.linkCount = linkCount
        self.storage = storage
    }
}

extension LogStore {
    /// The stored bodies, largest (as stored) first, at most `limit` of them. Read-only; an
    /// older store without network tasks (schema 1) has none.
    ///
    /// ```swift
    /// for blob in try await store.blobs(limit: 10) {
    ///     print(blob.key, blob.size, blob.decompressedSize, blob.linkCount, blob.storage)
    /// }
    /// ```
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a limit below 1; ``LogStoreError/closed`` after
    ///   ``close()``; ``LogStoreError/database(_:)`` when SQLite fails.
    public func blobs(limit: Int = 100) async throws -> [BlobSummary] {
        try checkOpen()
        guard limit >= 1 else { throw LogStoreError.invalidArgument("a blob listing's limit is at least 1 (got \(limit))") }
        return try await core.read { connection in
            try BlobRows.list(limit: limit, connection: connection)
        }
    }
}
