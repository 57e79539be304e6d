import CLZ4

/// A request body in ClickHouse's own compressed format, the one its native client sends: LZ4
/// costs a fraction of gzip's CPU for a somewhat larger body, and the HTTP interface reads it
/// when the URL has `decompress=1` (no `Content-Encoding`).
///
///     let body = try ClickHouseCompressedBody.encode(rowBinary)
///     // POST …/?query=INSERT%20INTO%20t%20FORMAT%20RowBinary&decompress=1
///
/// The body is a run of blocks, each one:
///
/// | bytes | what |
/// |---|---|
/// | 16 | CityHash128 (version 1.0.2) of the other two parts: low 64 bits, then high, little-endian |
/// | 9 | method `0x82` (LZ4); the block's size without the checksum (9 + payload); the size before compression — both UInt32 little-endian |
/// | n | the payload: LZ4's block format (no frame) |
///
/// A server that finds another checksum fails the request with HTTP 500, code 40 ("Checksum
/// doesn't match: corrupted data"): the shipper would retry it, so the checksum must be right.
enum ClickHouseCompressedBody {
    /// The most bytes one block holds before compression: what ClickHouse's own writer puts in
    /// one (its default buffer size, 1 MiB). Smaller blocks compress a little worse and cost a
    /// header and a checksum each.
    static let maxBlockSize = 1 << 20

    /// The largest `blockSize`: ClickHouse refuses a block of more than 1 GiB compressed, and
    /// LZ4's worst case for 512 MiB stays under that.
    static let maxAcceptedBlockSize = 1 << 29

    /// ClickHouse's method byte for LZ4.
    static let lz4Method: UInt8 = 0x82
    /// The checksum before each block.
    static let checksumSize = 16
    /// The method byte and the two sizes.
    static let headerSize = 9

    /// `bytes` as blocks of at most `blockSize` bytes each before compression. Empty input is an
    /// empty body: no blocks, which ClickHouse reads as no data.
    ///
    /// - Throws: ``ClickHouseCompressionError`` when `blockSize` is not in
    ///   1...``maxAcceptedBlockSize``, or when LZ4 fails (which into a buffer of LZ4's own bound
    ///   only a bug would make it do).
    static func encode(_ bytes: [UInt8], blockSize: Int = maxBlockSize) throws(ClickHouseCompressionError) -> [UInt8] {
        // withUnsafeBytes rethrows as `any Error`: the typed error crosses it in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ClickHouseCompressionError) -> [UInt8] in try encode(raw, blockSize: blockSize) }
        }
        return try result.get()
    }

    /// `bytes` as blocks, as the array form above.
    static func encode(_ bytes: UnsafeRawBufferPointer, blockSize: Int = maxBlockSize) throws(ClickHouseCompressionError) -> [UInt8] {
        guard (1...maxAcceptedBlockSize).contains(blockSize) else { throw .invalidBlockSize(blockSize) }
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return [] }

        // One allocation for the worst case, every block written in place and the array cut to
        // what was written: no copy of a payload.
        let fullBlocks = bytes.count / blockSize
        let rest = bytes.count % blockSize
        let perBlock = checksumSize + headerSize
        var capacity = fullBlocks * (perBlock + Int(LZ4_compressBound(Int32(blockSize))))
        if rest > 0 { capacity += perBlock + Int(LZ4_compressBound(Int32(rest))) }

        var failure: ClickHouseCompressionError?
        let body = [UInt8](unsafeUninitializedCapacity: capacity) { output, written in
            written = 0
            guard let destination = UnsafeMutableRawPointer(output.baseAddress) else {
                failure = .compressionFailed(blockSize: min(blockSize, bytes.count), code: 0)
                return
            }
            var offset = 0
            while offset < bytes.count {
                let length = min(blockSize, bytes.count - offset)
                let block = destination + written
                let payload = block + perBlock
                let bound = LZ4_compressBound(Int32(length))
                let packed = LZ4_compress_default(
                    (source + offset).assumingMemoryBound(to: CChar.self),
                    payload.assumingMemoryBound(to: CChar.self), Int32(length), bound)
                guard packed > 0 else {
                    failure = .compressionFailed(blockSize: length, code: packed)
                    return
                }
                let header = block + checksumSize
                header.storeBytes(of: lz4Method, as: UInt8.self)
                header.storeBytes(of: UInt32(headerSize + Int(packed)).littleEndian, toByteOffset: 1, as: UInt32.self)
                header.storeBytes(of: UInt32(length).littleEndian, toByteOffset: 5, as: UInt32.self)
                let checksum = CityHash128(UnsafeRawBufferPointer(start: header, count: headerSize + Int(packed)))
                block.storeBytes(of: checksum.low.littleEndian, as: UInt64.self)
                block.storeBytes(of: checksum.high.littleEndian, toByteOffset: 8, as: UInt64.self)
                written += perBlock + Int(packed)
                offset += length
            }
        }
        if let failure { throw failure }
        return body
    }
}

/// Why a body could not be put in ClickHouse's compressed format.
enum ClickHouseCompressionError: Error, Equatable, CustomStringConvertible {
    /// The block size asked for is not one ClickHouse and LZ4 can both take.
    case invalidBlockSize(Int)
    /// `LZ4_compress_default` returned `code` (0: it did not fit) for a block of `blockSize` bytes.
    case compressionFailed(blockSize: Int, code: Int32)

    var description: String {
        switch self {
        case .invalidBlockSize(let size):
            "invalid block size \(size) for ClickHouse's compressed format (1...\(ClickHouseCompressedBody.maxAcceptedBlockSize))"
        case .compressionFailed(let size, let code):
            "LZ4 could not compress a block of \(size) bytes (LZ4_compress_default returned \(code))"
        }
    }
}
