import Foundation

/// A body ready for ``BlobStore/store(_:)``: its key, and its compressed form once known,
/// computed ahead off the writer thread (the ingest layer hashes and compresses new bodies in
/// parallel) so the writer's transaction only looks the key up and inserts.
struct PreparedBlob: Sendable {
    var data: Data
    var key: SHA1.Digest
    /// The zlib stream when smaller than the body; `nil` when the body is stored as is, or
    /// when the store already has the key (nothing to compress).
    var compressed: [UInt8]?
}
