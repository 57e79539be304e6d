public import Foundation

extension LogStore {
    /// The key the store files a body under: the SHA-1 of its bytes, as 40 lowercase hexadecimal
    /// characters (the form `sha1sum` prints).
    ///
    /// Bodies are deduplicated by this key, and ``blobData(forKey:)`` takes it, so an app can
    /// compute the key of a body it sent or received and look it up later:
    ///
    /// ```swift
    /// let key = LogStore.blobKey(for: responseData)
    /// let stored = try await store.blobData(forKey: key)   // nil if that body was not kept
    /// ```
    ///
    /// The key is of the bytes as stored: when the store redacted a body before keeping it, the
    /// stored body (and so its key) differs from the original. SHA-1 identifies content here; it is
    /// not a security measure. Hashing takes about 1.25 ms per MB (800 MB/s) on one core of the
    /// 2-vCPU x86-64 development server.
    public static func blobKey(for body: some ContiguousBytes) -> String {
        SHA1.hash(body).hex
    }

    /// Compresses bodies the way the store does before keeping them, so its cost and result can be
    /// measured, or reproduced, outside a store.
    ///
    /// The store compresses each new body (one not already stored under the same ``blobKey(for:)``)
    /// into a zlib stream (RFC 1950, readable by any zlib, such as Python's `zlib.decompress`) at
    /// level ``level``, with one zlib stream reused from body to body, and keeps the compressed
    /// form only when it is smaller than the body; ``compress(_:)`` does the same steps. This is
    /// the path behind `Configuration.isBlobCompressionEnabled`.
    ///
    /// ```swift
    /// let compressor = try LogStore.BlobCompressor()
    /// for body in bodies {
    ///     let stored = try compressor.compress(body)?.count ?? body.count
    /// }
    /// ```
    ///
    /// Holds a zlib stream (about 0.3 MB) and its last output; reuse one instance for many bodies,
    /// on one thread at a time: it is not `Sendable`.
    ///
    /// Not part of the supported API: it is there for the benchmark, which compares the store's
    /// path with zlib's `compress2` (`@_spi(Benchmark) import LogStore`).
    @_spi(Benchmark) public final class BlobCompressor {
        private let compressor: ZlibCompressor
        /// The last compressed body, reused so a warm compressor allocates only its results.
        private var buffer: [UInt8] = []

        /// The zlib compression level the store uses for bodies: 1, about 2.5 times as fast as
        /// zlib's default (6) for output about 20 % larger on JSON and text.
        public var level: Int { compressor.level }

        /// Sets up the zlib stream.
        ///
        /// - Throws: ``LogStoreError/unexpected(_:cause:)`` with zlib's failure when it cannot
        ///   allocate its state.
        public init() throws(LogStoreError) {
            do {
                compressor = try ZlibCompressor(level: ZlibCompressor.defaultLevel)
            } catch {
                throw .unexpected("zlib", cause: error)
            }
        }

        /// The zlib stream the store would keep for `body`, or `nil` when compressing does not make
        /// it smaller (the store then keeps the body as it is): empty and tiny bodies, or bodies
        /// that are already compressed (images, archives, gzip-encoded data).
        ///
        /// - Throws: ``LogStoreError/unexpected(_:cause:)`` with zlib's failure (not expected once
        ///   `init` succeeded).
        public func compress(_ body: some ContiguousBytes) throws(LogStoreError) -> [UInt8]? {
            let isSmaller: Bool
            do {
                isSmaller = try body.withUnsafeBytes { raw in try compressor.compressIfSmaller(raw, into: &buffer) }
            } catch {
                throw .unexpected("zlib", cause: error)
            }
            defer {
                if buffer.capacity > 1 << 20 { buffer = [] }  // do not pin one huge body's output
            }
            return isSmaller ? buffer : nil
        }
    }
}

@available(*, unavailable, message: "BlobCompressor owns a mutable zlib stream: use one per thread")
@_spi(Benchmark) extension LogStore.BlobCompressor: Sendable {}

extension ZlibCompressor {
    /// Compresses `body` as one zlib stream into `output` (replacing its contents, keeping its
    /// capacity) unless that would not be smaller: returns `false`, with `output` empty, as soon as
    /// the compressed form reaches `body.count` bytes, and at once for bodies of 8 bytes or fewer
    /// (a zlib stream has 6 bytes of framing).
    func compressIfSmaller(_ body: UnsafeRawBufferPointer, into output: inout [UInt8]) throws -> Bool {
        output.removeAll(keepingCapacity: true)
        guard body.count > 8 else { return false }
        let limit = body.count - 1
        func append(_ chunk: UnsafeRawBufferPointer) throws {
            guard output.count + chunk.count <= limit else { throw NotSmaller() }
            output.append(contentsOf: chunk)
        }
        do {
            try beginStream()
            try streamInput(body, to: append)
            try finishStream(to: append)
        } catch is NotSmaller {
            output.removeAll(keepingCapacity: true)
            return false
        }
        return true
    }
}

/// Stops a compression whose output has reached the size of its input.
private struct NotSmaller: Error {}
