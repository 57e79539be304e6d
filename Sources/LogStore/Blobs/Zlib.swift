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

/// zlib's `avail_in` / `avail_out` are 32-bit: longer buffers are fed in slices of at most this size.
private let maxSliceSize = 1 << 30

/// Allocates and zero-initialises a `z_stream`. zlib keeps a back pointer to the stream in its internal
/// state, so the struct must live at a fixed address for the stream's whole life: it is heap-allocated
/// here and freed by the owning class.
///
/// `initialize` is `deflateInit` or `inflateInit`; when it fails, the stream is freed and its
/// error thrown.
private func openStream(
    _ initialize: (UnsafeMutablePointer<z_stream>) -> Int32
) throws(ZlibError) -> UnsafeMutablePointer<z_stream> {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())  // zalloc/zfree/opaque = NULL: zlib's default allocator
    let status = initialize(stream)
    guard status == Z_OK else {
        let message = zlibMessage(stream, status)
        releaseStream(stream)
        throw .streamError(code: status, message: message)
    }
    return stream
}

/// The size of a class's output window for a requested chunk size: at least 4 KiB, at most what
/// zlib's 32-bit counters take.
private func outputWindowSize(_ requested: Int) -> Int {
    min(max(requested, 4096), maxSliceSize)
}

private func releaseStream(_ stream: UnsafeMutablePointer<z_stream>) {
    stream.deinitialize(count: 1)
    stream.deallocate()
}

/// zlib's message for the last error on `stream`, or its generic text for `code`.
private func zlibMessage(_ stream: UnsafeMutablePointer<z_stream>, _ code: Int32) -> String {
    if let message = stream.pointee.msg {
        return String(cString: message)
    }
    if let text = zError(code) {
        return String(cString: text)
    }
    return "zlib status \(code)"
}

/// zlib takes a non-const `next_in` (its headers are built without `z_const`) but never writes to it.
private func inputPointer(_ base: UnsafeRawPointer?, offset: Int) -> UnsafeMutablePointer<Bytef>? {
    guard let base else { return nil }
    return UnsafeMutableRawPointer(mutating: base + offset).assumingMemoryBound(to: Bytef.self)
}

// MARK: - Compression

/// A reusable zlib compressor.
///
/// One-shot:
///
///     let compressor = try ZlibCompressor(level: 1)
///     let packed = try compressor.compress(body)          // [UInt8], zlib format
///
/// Streaming a large body to a file, hashing it on the way (the sink receives a view of an internal
/// buffer that is only valid during the call; write or copy it before returning):
///
///     var sha = SHA1()
///     let totals = try compressor.compress(contentsOf: source, inspectInput: { sha.update($0) }) { chunk in
///         try destination.write(contentsOf: chunk)
///     }
///
/// or feed the pieces yourself with `beginStream()`, `streamInput(_:to:)`, `finishStream(to:)`.
///
/// Not thread-safe and not `Sendable`: keep one per writer thread. `deinit` releases the zlib stream.
final class ZlibCompressor {
    /// Level 1 is about 2.5× faster than 6 for about 20 % larger output on log/JSON text.
    static let defaultLevel = 1

    /// The compression level: 0 (store) … 9 (smallest), or -1 for zlib's default (6).
    let level: Int

    private let stream: UnsafeMutablePointer<z_stream>
    /// Output is produced into this buffer and handed to sinks (or copied into results) chunk by chunk.
    private let outputBuffer: UnsafeMutablePointer<Bytef>
    private let outputCapacity: Int
    /// The stream was used since the last (re)initialisation and must be reset before the next message.
    private var needsReset = false
    /// A `beginStream()` / `streamInput` sequence is open.
    private var streamOpen = false

    /// - Parameters:
    ///   - level: -1 (zlib default) or 0...9. Other values throw `ZlibError.streamError`.
    ///   - outputChunkSize: size of the internal output buffer, and so the largest chunk a sink receives.
    init(level: Int = ZlibCompressor.defaultLevel, outputChunkSize: Int = 64 << 10) throws(ZlibError) {
        guard (-1...9).contains(level) else {
            throw .streamError(code: Z_STREAM_ERROR, message: "invalid compression level \(level) (use -1 or 0...9)")
        }
        self.stream = try openStream { logstore_deflate_init($0, Int32(level)) }
        self.level = level
        self.outputCapacity = outputWindowSize(outputChunkSize)
        self.outputBuffer = .allocate(capacity: outputCapacity)
    }

    deinit {
        deflateEnd(stream)
        releaseStream(stream)
        outputBuffer.deallocate()
    }

    // MARK: One-shot

    /// Compresses `input` into a complete zlib stream.
    func compress(_ input: UnsafeRawBufferPointer) throws(ZlibError) -> [UInt8] {
        streamOpen = false
        try resetIfNeeded()
        var result: [UInt8] = []
        let status = feed(input, finish: true) { chunk in result.append(contentsOf: chunk) }
        if let error = failure(for: status, finishing: true) { throw error }
        return result
    }

    /// Compresses the bytes of `data` (`Data`, `[UInt8]`, …) into a complete zlib stream.
    func compress(_ data: some ContiguousBytes) throws(ZlibError) -> [UInt8] {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ZlibError) -> [UInt8] in try compress(raw) }
        }
        return try result.get()
    }

    // MARK: Streaming

    /// Starts a new stream, abandoning any unfinished one.
    func beginStream() throws(ZlibError) {
        streamOpen = false
        try resetIfNeeded()
        streamOpen = true
    }

    /// Compresses the next piece of the current stream (starting one if none is open), passing any
    /// output produced so far to `sink`. `sink` receives a view of an internal buffer, valid only during
    /// the call. Errors thrown by `sink` are rethrown and abandon the stream.
    func streamInput(_ input: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if !streamOpen { try beginStream() }
        do {
            let status = try feed(input, finish: false, sink: sink)
            if let error = failure(for: status, finishing: false) { throw error }
        } catch {
            streamOpen = false
            throw error
        }
    }

    /// Ends the current stream (an empty one if none is open): flushes the remaining output and the
    /// trailer to `sink`, and returns the stream's totals.
    @discardableResult
    func finishStream(to sink: (UnsafeRawBufferPointer) throws -> Void) throws -> ZlibStreamTotals {
        if !streamOpen { try beginStream() }
        streamOpen = false
        let status = try feed(UnsafeRawBufferPointer(start: nil, count: 0), finish: true, sink: sink)
        if let error = failure(for: status, finishing: true) { throw error }
        return ZlibStreamTotals(
            inputBytes: Int(stream.pointee.total_in), outputBytes: Int(stream.pointee.total_out))
    }

    /// Compresses a sequence of chunks as one zlib stream, passing the output to `sink` in pieces of at
    /// most `outputChunkSize` bytes.
    @discardableResult
    func compress<Chunks: Sequence>(
        chunks: Chunks, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> ZlibStreamTotals where Chunks.Element: ContiguousBytes {
        try beginStream()
        for chunk in chunks {
            try chunk.withUnsafeBytes { raw in try streamInput(raw, to: sink) }
        }
        return try finishStream(to: sink)
    }

    /// Reads `file` from its current offset to the end and compresses it as one zlib stream, passing the
    /// output to `sink`. Memory use is bounded by `chunkSize` plus the output buffer, whatever the file size.
    ///
    /// - Parameter inspectInput: sees every uncompressed chunk before it is compressed (for example to
    ///   hash the body with `SHA1` in the same pass).
    @discardableResult
    func compress(
        contentsOf file: FileHandle,
        chunkSize: Int = 256 << 10,
        inspectInput: (UnsafeRawBufferPointer) throws -> Void = { _ in },
        to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> ZlibStreamTotals {
        try beginStream()
        let size = max(chunkSize, 4096)
        while let data = try file.read(upToCount: size), !data.isEmpty {
            try data.withUnsafeBytes { raw in
                try inspectInput(raw)
                try streamInput(raw, to: sink)
            }
        }
        return try finishStream(to: sink)
    }

    // MARK: Internals

    private func resetIfNeeded() throws(ZlibError) {
        guard needsReset else { return }
        let status = deflateReset(stream)
        guard status == Z_OK else {
            throw .streamError(code: status, message: zlibMessage(stream, status))
        }
        needsReset = false
    }

    /// Maps the final status of `feed` to an error, or nil for success.
    private func failure(for status: Int32, finishing: Bool) -> ZlibError? {
        if finishing ? status == Z_STREAM_END : status == Z_OK { return nil }
        return .streamError(code: status, message: zlibMessage(stream, status))
    }

    /// Deflates all of `input` (in slices of at most 1 GiB), finishing the stream if `finish`.
    /// Returns `Z_STREAM_END` (finished), `Z_OK` (all input consumed, stream still open) or a zlib error.
    private func feed(
        _ input: UnsafeRawBufferPointer, finish: Bool, sink: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows -> Int32 {
        needsReset = true
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
        }
        var offset = 0
        while true {
            let sliceSize = min(input.count - offset, maxSliceSize)
            let lastSlice = offset + sliceSize == input.count
            stream.pointee.next_in = inputPointer(input.baseAddress, offset: offset)
            stream.pointee.avail_in = UInt32(sliceSize)
            let status = try pump(flush: lastSlice && finish ? Z_FINISH : Z_NO_FLUSH, sink: sink)
            offset += sliceSize
            if lastSlice || status != Z_OK { return status }
        }
    }

    /// Runs `deflate` until the current input is consumed (`Z_NO_FLUSH`, returns `Z_OK`) or the stream
    /// has ended (`Z_FINISH`, returns `Z_STREAM_END`), passing output to `sink` as the buffer fills.
    private func pump(flush: Int32, sink: (UnsafeRawBufferPointer) throws -> Void) rethrows -> Int32 {
        while true {
            stream.pointee.next_out = outputBuffer
            stream.pointee.avail_out = UInt32(outputCapacity)
            let status = deflate(stream, flush)
            let produced = outputCapacity - Int(stream.pointee.avail_out)
            if produced > 0 {
                try sink(UnsafeRawBufferPointer(start: outputBuffer, count: produced))
            }
            switch status {
            case Z_STREAM_END:
                return status
            case Z_OK, Z_BUF_ERROR:
                if flush == Z_FINISH {
                    // With output space available, Z_FINISH always makes progress until Z_STREAM_END.
                    if status == Z_BUF_ERROR && produced == 0 { return status }
                } else if stream.pointee.avail_out != 0 {
                    return Z_OK  // deflate stopped with room left: all input consumed
                }
            default:
                return status
            }
        }
    }
}

@available(*, unavailable, message: "ZlibCompressor owns a mutable zlib stream: use one per thread")
extension ZlibCompressor: Sendable {}

// MARK: - Decompression

/// A reusable zlib decompressor with a hard bound on the output size.
///
///     let decompressor = try ZlibDecompressor()
///     let body = try decompressor.decompress(stored, maxOutputSize: 64 << 20)
///
/// Hostile input cannot make it allocate more than `maxOutputSize` bytes for the result: output is
/// produced in bounded windows and decompression stops with `ZlibError.outputLimitExceeded` as soon as
/// one more byte than the limit appears. Corrupt input gives `.corruptData`, input that stops early
/// gives `.truncatedData`, and bytes after the end of the stream are rejected as `.corruptData`.
///
/// Not thread-safe and not `Sendable`: keep one per thread. `deinit` releases the zlib stream.
final class ZlibDecompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private let outputBuffer: UnsafeMutablePointer<Bytef>
    private let outputCapacity: Int
    private var needsReset = false

    /// - Parameter outputChunkSize: size of the internal output window, and so the largest chunk a
    ///   streaming sink receives.
    init(outputChunkSize: Int = 64 << 10) throws(ZlibError) {
        self.stream = try openStream { logstore_inflate_init($0) }
        self.outputCapacity = outputWindowSize(outputChunkSize)
        self.outputBuffer = .allocate(capacity: outputCapacity)
    }

    deinit {
        inflateEnd(stream)
        releaseStream(stream)
        outputBuffer.deallocate()
    }

    // MARK: One-shot

    /// Decompresses one complete zlib stream.
    ///
    /// - Parameters:
    ///   - maxOutputSize: the largest acceptable decompressed size. Larger output throws
    ///     `.outputLimitExceeded` without keeping more than this many bytes.
    ///   - expectedSize: the decompressed size if known (for example stored next to the blob): the
    ///     result is then allocated once. Only a hint; it never raises the limit.
    func decompress(
        _ input: UnsafeRawBufferPointer, maxOutputSize: Int, expectedSize: Int? = nil
    ) throws(ZlibError) -> [UInt8] {
        let limit = max(maxOutputSize, 0)
        try reset()
        var result: [UInt8] = []
        let guess = expectedSize ?? input.count.multipliedReportingOverflow(by: 4).partialValue
        result.reserveCapacity(min(limit, max(guess, 256)))
        let step = inflateInput(input, isLastInput: true, limit: limit) { chunk in
            // Grow geometrically but never past the limit (the window logic guarantees count ≤ limit).
            let needed = result.count + chunk.count
            if needed > result.capacity {
                result.reserveCapacity(min(limit, max(needed, result.capacity * 2)))
            }
            result.append(contentsOf: chunk)
        }
        switch step {
        case .ended: return result
        case .needsMoreInput: throw .truncatedData  // not reached: isLastInput turns this into .failed
        case .failed(let error): throw error
        }
    }

    /// Decompresses one complete zlib stream held in `data` (`Data`, `[UInt8]`, …).
    func decompress(
        _ data: some ContiguousBytes, maxOutputSize: Int, expectedSize: Int? = nil
    ) throws(ZlibError) -> [UInt8] {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ZlibError) -> [UInt8] in
                try decompress(raw, maxOutputSize: maxOutputSize, expectedSize: expectedSize)
            }
        }
        return try result.get()
    }

    // MARK: Streaming

    /// Decompresses one zlib stream split across `chunks`, passing the output to `sink` (a view of an
    /// internal buffer, valid only during the call). Throws `ZlibError` for bad data or once the output
    /// would exceed `maxOutputSize`; output already passed to `sink` stays passed, so a caller writing
    /// to a file should delete it on error.
    @discardableResult
    func decompress<Chunks: Sequence>(
        chunks: Chunks, maxOutputSize: Int, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> ZlibStreamTotals where Chunks.Element: ContiguousBytes {
        let limit = max(maxOutputSize, 0)
        try reset()
        var ended = false
        for chunk in chunks {
            try chunk.withUnsafeBytes { raw in
                ended = try streamStep(raw, ended: ended, isLastInput: false, limit: limit, sink: sink)
            }
        }
        try finishStreaming(ended: ended)
        return totals()
    }

    /// Reads `file` from its current offset to the end and decompresses it, passing the output to `sink`.
    /// Memory use is bounded by `chunkSize` plus the output window, whatever the sizes involved.
    @discardableResult
    func decompress(
        contentsOf file: FileHandle, maxOutputSize: Int, chunkSize: Int = 256 << 10,
        to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> ZlibStreamTotals {
        let limit = max(maxOutputSize, 0)
        try reset()
        var ended = false
        let size = max(chunkSize, 4096)
        while let data = try file.read(upToCount: size), !data.isEmpty {
            try data.withUnsafeBytes { raw in
                ended = try streamStep(raw, ended: ended, isLastInput: false, limit: limit, sink: sink)
            }
        }
        try finishStreaming(ended: ended)
        return totals()
    }

    // MARK: Internals

    private enum Step {
        /// The end of the zlib stream was reached and its checksum verified.
        case ended
        /// All input was consumed; the stream continues in the next input.
        case needsMoreInput
        case failed(ZlibError)
    }

    private func reset() throws(ZlibError) {
        guard needsReset else { return }
        let status = inflateReset(stream)
        guard status == Z_OK else {
            throw .streamError(code: status, message: zlibMessage(stream, status))
        }
        needsReset = false
    }

    private func totals() -> ZlibStreamTotals {
        ZlibStreamTotals(inputBytes: Int(stream.pointee.total_in), outputBytes: Int(stream.pointee.total_out))
    }

    /// One input chunk of a streamed decompression. Returns whether the stream has ended.
    private func streamStep(
        _ input: UnsafeRawBufferPointer, ended: Bool, isLastInput: Bool, limit: Int,
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        if ended {
            if input.isEmpty { return true }
            throw ZlibError.corruptData("trailing data after the end of the zlib stream")
        }
        switch try inflateInput(input, isLastInput: isLastInput, limit: limit, sink: sink) {
        case .ended: return true
        case .needsMoreInput: return false
        case .failed(let error): throw error
        }
    }

    private func finishStreaming(ended: Bool) throws(ZlibError) {
        if !ended { throw .truncatedData }
    }

    /// Inflates all of `input` as the next part of the current stream. The output of the whole stream is
    /// kept within `limit`: each `inflate` call gets a window of at most (bytes still allowed + 1), so
    /// producing that one extra byte proves the limit would be exceeded, without allocating for it.
    private func inflateInput(
        _ input: UnsafeRawBufferPointer, isLastInput: Bool, limit: Int,
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows -> Step {
        needsReset = true
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
        }
        var offset = 0  // input bytes handed to zlib so far
        while true {
            if stream.pointee.avail_in == 0 && offset < input.count {
                let sliceSize = min(input.count - offset, maxSliceSize)
                stream.pointee.next_in = inputPointer(input.baseAddress, offset: offset)
                stream.pointee.avail_in = UInt32(sliceSize)
                offset += sliceSize
            }
            let availableBefore = stream.pointee.avail_in
            let allowed = limit - Int(stream.pointee.total_out)
            let window = allowed >= outputCapacity ? outputCapacity : allowed + 1
            stream.pointee.next_out = outputBuffer
            stream.pointee.avail_out = UInt32(window)

            let status = inflate(stream, Z_NO_FLUSH)

            let produced = window - Int(stream.pointee.avail_out)
            if produced > allowed {
                return .failed(.outputLimitExceeded(limit: limit))
            }
            if produced > 0 {
                try sink(UnsafeRawBufferPointer(start: outputBuffer, count: produced))
            }
            let inputLeft = stream.pointee.avail_in > 0 || offset < input.count
            switch status {
            case Z_STREAM_END:
                if inputLeft {
                    return .failed(.corruptData("trailing data after the end of the zlib stream"))
                }
                return .ended
            case Z_OK, Z_BUF_ERROR:
                if stream.pointee.avail_out == 0 { continue }  // window full: more output may follow
                if !inputLeft {
                    return isLastInput ? .failed(.truncatedData) : .needsMoreInput
                }
                // inflate returns early only when input or output runs out; guard against a stall anyway.
                if produced == 0 && stream.pointee.avail_in == availableBefore {
                    return .failed(.streamError(code: status, message: "inflate made no progress"))
                }
            case Z_NEED_DICT:
                return .failed(.corruptData("stream requires a preset dictionary"))
            case Z_DATA_ERROR:
                return .failed(.corruptData(zlibMessage(stream, status)))
            default:
                return .failed(.streamError(code: status, message: zlibMessage(stream, status)))
            }
        }
    }
}

@available(*, unavailable, message: "ZlibDecompressor owns a mutable zlib stream: use one per thread")
extension ZlibDecompressor: Sendable {}

/// The CRC-32 of `bytes` (zlib's `crc32`, the checksum of gzip and PNG), continuing from `initial`.
func crc32Checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return initial }
    var crc = UInt(initial)
    var offset = 0
    // zlib's length argument is a 32-bit `uInt`.
    while offset < bytes.count {
        let count = min(bytes.count - offset, 1 << 30)
        crc = crc32(crc, base.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(count))
        offset += count
    }
    return UInt32(truncatingIfNeeded: crc)
}
