import Foundation

/// A body ready for ``BlobStore/store(_:)``: its key, and what was learnt about compressing it,
/// computed ahead off the writer thread (the ingest layer hashes and compresses new bodies in
/// parallel) so the writer's transaction only looks the key up and inserts.
struct PreparedBlob: Sendable {
    var data: Data
    var key: SHA1.Digest
    var compression: Compression = .untried

    /// What the preparation found out about compressing the body. Kept apart from "not tried",
    /// so the writer never compresses again a body the preparation already found incompressible.
    enum Compression: Sendable, Equatable {
        /// Not attempted (the store had the key, compression is off, or zlib failed): the blob
        /// store compresses the body if it turns out to be new.
        case untried
        /// Attempted, or skipped on purpose (already-compressed content): store the bytes as they are.
        case incompressible
        /// The zlib stream, smaller than the body.
        case zlib([UInt8])
    }
}
