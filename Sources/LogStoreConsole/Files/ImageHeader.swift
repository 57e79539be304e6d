/// An image's format and pixel size, read from the first bytes of its file without decoding it.
///
/// Recognised by signature: PNG, GIF, JPEG and WebP (lossy `VP8 `, lossless `VP8L`, extended
/// `VP8X`). Every read is bounds-checked and the JPEG walk only moves forward, so truncated or
/// hostile bytes give nil, never a trap. A width or height of 0 gives nil. The sizes are the
/// stored ones (an Exif rotation is not applied).
///
/// LogStore has its own reader for captured bodies, internal to that module; this one is the
/// console's, kept small.
struct ImageHeader: Sendable, Equatable {
    /// `png`, `gif`, `jpeg` or `webp`.
    var format: String
    /// Width in pixels.
    var width: Int
    /// Height in pixels.
    var height: Int

    /// The format and size in `bytes` (the start of a file), or nil.
    static func read(_ bytes: [UInt8]) -> ImageHeader? {
        let found: ImageHeader?
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            found = png(bytes)
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            found = gif(bytes)
        } else if bytes.starts(with: [0xFF, 0xD8]) {
            found = jpeg(bytes)
        } else if bytes.starts(with: Array("RIFF".utf8)), bytes.count >= 12, Array(bytes[8..<12]) == Array("WEBP".utf8) {
            found = webp(bytes)
        } else {
            found = nil
        }
        guard let found, found.width > 0, found.height > 0 else { return nil }
        return found
    }

    /// PNG: the `IHDR` chunk must come first; its width and height are 4-byte big-endian.
    private static func png(_ bytes: [UInt8]) -> ImageHeader? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8),
            let width = bigEndian(bytes, at: 16, count: 4), let height = bigEndian(bytes, at: 20, count: 4)
        else { return nil }
        return ImageHeader(format: "png", width: width, height: height)
    }

    /// GIF: the logical screen's width and height, 2-byte little-endian after the signature.
    private static func gif(_ bytes: [UInt8]) -> ImageHeader? {
        guard let width = littleEndian(bytes, at: 6, count: 2), let height = littleEndian(bytes, at: 8, count: 2) else { return nil }
        return ImageHeader(format: "gif", width: width, height: height)
    }

    /// JPEG: walks the segments to the first start-of-frame (`FFC0`…`FFCF` but `C4` DHT, `C8`
    /// JPG and `CC` DAC), whose height and width follow its length and precision.
    private static func jpeg(_ bytes: [UInt8]) -> ImageHeader? {
        var index = 2
        while index + 1 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {  // fill byte before a marker
                index += 1
                continue
            }
            // Markers without a length: TEM and RST0…7.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                index += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image, start of scan: no frame header before
            guard let length = bigEndian(bytes, at: index + 2, count: 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = bigEndian(bytes, at: index + 5, count: 2), let width = bigEndian(bytes, at: index + 7, count: 2)
                else { return nil }
                return ImageHeader(format: "jpeg", width: width, height: height)
            }
            index += 2 + length
        }
        return nil
    }

    /// WebP: the size in the first chunk after `RIFF….WEBP`, which is at byte 12.
    private static func webp(_ bytes: [UInt8]) -> ImageHeader? {
        guard bytes.count >= 16 else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8 ":
            // A key frame: 3-byte frame tag, start code 9D 01 2A, then 14-bit width and height
            // (the top two bits of each are a scale, which decoders ignore for the size).
            guard bytes.count >= 30, bytes[23] == 0x9D, bytes[24] == 0x01, bytes[25] == 0x2A,
                let width = littleEndian(bytes, at: 26, count: 2), let height = littleEndian(bytes, at: 28, count: 2)
            else { return nil }
            return ImageHeader(format: "webp", width: width & 0x3FFF, height: height & 0x3FFF)
        case "VP8L":
            // Signature byte 2F, then width − 1 and height − 1 in 14 bits each, little-endian.
            guard bytes.count >= 25, bytes[20] == 0x2F, let bits = littleEndian(bytes, at: 21, count: 4) else { return nil }
            return ImageHeader(format: "webp", width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        case "VP8X":
            // 4 bytes of flags, then the canvas's width − 1 and height − 1, 24-bit little-endian.
            guard let width = littleEndian(bytes, at: 24, count: 3), let height = littleEndian(bytes, at: 27, count: 3) else {
                return nil
            }
            return ImageHeader(format: "webp", width: width + 1, height: height + 1)
        default:
            return nil
        }
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
