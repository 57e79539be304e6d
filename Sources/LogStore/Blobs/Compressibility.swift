/// Tells, without compressing, bodies that zlib cannot make smaller: content already compressed
/// (images, archives, audio and video, a `Content-Encoding`), and, for other types, bytes that
/// look random in a short sample. Compressing such a body costs as much as compressing text and
/// is then thrown away, since the store keeps the stored form only when it is smaller.
///
/// A wrong guess costs only space: a body judged incompressible is stored as it is.
enum Compressibility {
    /// Whether a body of media type `essence` (``MediaType/essence(of:)``) sent with the
    /// `Content-Encoding` value `encoding` is already compressed.
    static func isCompressed(essence: String?, encoding: String?) -> Bool {
        if let encoding, isCompressedEncoding(encoding) { return true }
        guard let essence else { return false }
        if let slash = essence.utf8.firstIndex(of: UInt8(ascii: "/")) {
            let top = essence.utf8[..<slash]
            if top.elementsEqual("video".utf8) || top.elementsEqual("audio".utf8) { return true }
        }
        return compressedTypes.contains(essence)
    }

    /// Whether `bytes` look already compressed: a known compressed format's signature, or a
    /// sample of their first ``sampleSize`` bytes using nearly every byte value, as compressed
    /// and encrypted data do (random bytes show ~221 distinct values in 512; JSON and text
    /// well under 100). Bodies shorter than the sample are not judged: they are cheap to try.
    static func looksCompressed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= sampleSize else { return false }
        if hasCompressedSignature(bytes) { return true }
        // 256 bits, one per byte value seen: no per-call allocation, no branches per byte.
        var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for index in 0..<sampleSize {
            let byte = bytes[index]
            let bit = UInt64(1) << (byte & 63)
            switch byte >> 6 {
            case 0: seen.0 |= bit
            case 1: seen.1 |= bit
            case 2: seen.2 |= bit
            default: seen.3 |= bit
            }
        }
        let distinct = seen.0.nonzeroBitCount + seen.1.nonzeroBitCount + seen.2.nonzeroBitCount
            + seen.3.nonzeroBitCount
        return distinct >= distinctThreshold
    }

    /// Bytes sampled from the start of a body.
    static let sampleSize = 512
    /// Distinct byte values in the sample from which the body counts as compressed: random
    /// bytes give 221 ± 5, so 192 leaves room on both sides.
    static let distinctThreshold = 192

    private static func isCompressedEncoding(_ encoding: String) -> Bool {
        // A list (`gzip, br`) is compressed when any coding is; `identity` alone is not.
        encoding.split(separator: ",").contains { coding in
            let name = coding.trimmingSpaces().lowercased()
            return name == "gzip" || name == "x-gzip" || name == "br" || name == "zstd" || name == "deflate"
                || name == "compress" || name == "x-compress"
        }
    }

    private static func hasCompressedSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + signature.count else { return false }
            return signature.indices.allSatisfy { bytes[offset + $0] == signature[$0] }
        }
        return starts(with: [0x1F, 0x8B])  // gzip
            || starts(with: [0x89, 0x50, 0x4E, 0x47])  // PNG
            || starts(with: [0xFF, 0xD8, 0xFF])  // JPEG
            || starts(with: [0x47, 0x49, 0x46, 0x38])  // GIF
            || starts(with: [0x50, 0x4B, 0x03, 0x04])  // zip (and docx, jar, …)
            || starts(with: [0x28, 0xB5, 0x2F, 0xFD])  // zstd
            || starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00])  // xz
            || starts(with: [0x42, 0x5A, 0x68])  // bzip2
            || (starts(with: [0x52, 0x49, 0x46, 0x46]) && starts(with: [0x57, 0x45, 0x42, 0x50], at: 8))  // WebP
    }

    private static let compressedTypes: Set<String> = [
        "image/png", "image/jpeg", "image/jpg", "image/pjpeg", "image/gif", "image/webp", "image/avif",
        "image/heic", "image/heif", "image/jxl", "application/zip", "application/gzip", "application/x-gzip",
        "application/zstd", "application/x-bzip2", "application/x-xz", "application/x-7z-compressed",
        "application/x-rar-compressed", "application/vnd.rar", "font/woff", "font/woff2",
        "application/font-woff", "application/epub+zip", "application/java-archive",
    ]
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
