import CZlib
import Foundation

// zlib-format (RFC 1950) compression for stored bodies, over the system zlib.
//
// The output is the plain zlib container (2-byte header, deflate data, Adler-32 trailer), not raw
// deflate and not gzip, so any zlib reader (Python's `zlib.decompress`, `openssl zlib -d`, …) reads it.
//
// Both classes own one long-lived zlib stream and reset it between messages (`deflateReset` /
// `inflateReset`): setting a stream up costs 35–50 % of the work on 4 KiB bodies. They are therefore
// stateful and NOT thread-safe: create one per writer (or reader) thread and never share it. They are
// deliberately not `Sendable`.
//
// This file holds what both share (errors, totals, the stream's life); the classes are in
// ZlibCompressor.swift and ZlibDecompressor.swift, the CRC-32 in CRC32.swift.

/// Errors from `ZlibCompressor` and `ZlibDecompressor`.
enum ZlibError: Error, Equatable, CustomStringConvertible {
    /// zlib reported an unexpected status: invalid parameters (for example a compression level outside
    /// -1...9), out of memory, or a library/stream failure. `code` is zlib's return value
    /// (`Z_STREAM_ERROR` = -2, `Z_MEM_ERROR` = -4, `Z_VERSION_ERROR` = -6, …).
    case streamError(code: Int32, message: String)
    /// Decompressing would produce more than `limit` bytes. Raised before more than `limit` bytes are
    /// kept, so a decompression bomb costs at most `limit` bytes of memory.
    case outputLimitExceeded(limit: Int)
    /// The input is not a valid zlib stream (bad header, invalid deflate data, Adler-32 mismatch, preset
    /// dictionary required, or bytes after the end of the stream).
    case corruptData(String)
    /// The input ended before the end of the zlib stream (including empty input).
    case truncatedData

    var description: String {
        switch self {
        case .streamError(let code, let message): "zlib error \(code): \(message)"
        case .outputLimitExceeded(let limit): "decompressed data exceeds the limit of \(limit) bytes"
        case .corruptData(let reason): "corrupt zlib data: \(reason)"
        case .truncatedData: "truncated zlib data"
        }
    }
}

/// Byte counts of one streamed compression or decompression.
struct ZlibStreamTotals: Sendable, Equatable {
    /// Bytes consumed.
    var inputBytes: Int
    /// Bytes produced (passed to the sink).
    var outputBytes: Int
}

/// What both stream classes share: opening, closing and feeding a heap-allocated `z_stream`.
enum ZlibStream {
    /// zlib's `avail_in` / `avail_out` are 32-bit: longer buffers are fed in slices of at most this size.
    static let maxSliceSize = 1 << 30

    /// Allocates and zero-initialises a `z_stream`. zlib keeps a back pointer to the stream in its internal
    /// state, so the struct must live at a fixed address for the stream's whole life: it is heap-allocated
    /// here and freed by the owning class.
    ///
    /// `initialize` is `deflateInit` or `inflateInit`; when it fails, the stream is freed and its
    /// error thrown.
    static func open(
        _ initialize: (UnsafeMutablePointer<z_stream>) -> Int32
    ) throws(ZlibError) -> UnsafeMutablePointer<z_stream> {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())  // zalloc/zfree/opaque = NULL: zlib's default allocator
        let status = initialize(stream)
        guard status == Z_OK else {
            let text = message(stream, status)
            release(stream)
            throw .streamError(code: status, message: text)
        }
        return stream
    }

    /// The size of a class's output window for a requested chunk size: at least 4 KiB, at most what
    /// zlib's 32-bit counters take.
    static func outputWindowSize(_ requested: Int) -> Int {
        min(max(requested, 4096), maxSliceSize)
    }

    static func release(_ stream: UnsafeMutablePointer<z_stream>) {
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// zlib's message for the last error on `stream`, or its generic text for `code`.
    static func message(_ stream: UnsafeMutablePointer<z_stream>, _ code: Int32) -> String {
        if let message = stream.pointee.msg {
            return String(cString: message)
        }
        if let text = zError(code) {
            return String(cString: text)
        }
        return "zlib status \(code)"
    }

    /// zlib takes a non-const `next_in` (its headers are built without `z_const`) but never writes to it.
    static func inputPointer(_ base: UnsafeRawPointer?, offset: Int) -> UnsafeMutablePointer<Bytef>? {
        guard let base else { return nil }
        return UnsafeMutableRawPointer(mutating: base + offset).assumingMemoryBound(to: Bytef.self)
    }
}
