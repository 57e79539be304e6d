import CZlib

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
