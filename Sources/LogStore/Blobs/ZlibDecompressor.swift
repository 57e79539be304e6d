import CZlib
import Foundation

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
        self.stream = try ZlibStream.open { logstore_inflate_init($0) }
        self.outputCapacity = ZlibStream.outputWindowSize(outputChunkSize)
        self.outputBuffer = .allocate(capacity: outputCapacity)
    }

    deinit {
        inflateEnd(stream)
        ZlibStream.release(stream)
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
            throw .streamError(code: status, message: ZlibStream.message(stream, status))
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
                let sliceSize = min(input.count - offset, ZlibStream.maxSliceSize)
                stream.pointee.next_in = ZlibStream.inputPointer(input.baseAddress, offset: offset)
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
                return .failed(.corruptData(ZlibStream.message(stream, status)))
            default:
                return .failed(.streamError(code: status, message: ZlibStream.message(stream, status)))
            }
        }
    }
}

@available(*, unavailable, message: "ZlibDecompressor owns a mutable zlib stream: use one per thread")
extension ZlibDecompressor: Sendable {}
