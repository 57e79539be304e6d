/// Where a stored body is: its row in `blobs`, its key and its sizes.
struct BlobReference: Hashable, Sendable {
    /// The `blobs.id` of the body (what `tasks.request_body_id` / `response_body_id` hold).
    var rowID: Int64
    /// The SHA-1 of the body's bytes (as given to ``BlobStore/store(_:)``, before compression).
    var key: SHA1.Digest
    /// Bytes as stored: compressed when that was smaller.
    var size: Int
    /// Bytes of the body itself.
    var decompressedSize: Int
}
