import Foundation

/// The pixel size of an image, read from the first bytes of its file (for example a captured
/// response body) without decoding it.
///
///     if let size = ImageSize.read(body) {
///         print("\(size.format) \(size.width)×\(size.height)")
///     }
///
/// Recognised: PNG, GIF (87a and 89a), JPEG (any SOF frame type: baseline, extended, progressive,
/// lossless, arithmetic-coded) and WebP (simple lossy `VP8 `, simple lossless `VP8L`, extended `VP8X`).
/// The format is identified by its signature, not by a content type or file name.
///
/// Reading is bounded and total: at most the first ``headerPrefixLength`` bytes are looked at (PNG,
/// GIF and WebP need only the first 30), every read is bounds-checked, and every step of the JPEG
/// marker walk moves forward, so hostile or truncated input returns `nil` quickly and never traps.
/// A width or height of 0 or above ``maxDimension`` also gives `nil`.
///
/// The sizes are the ones stored in the file: an Exif orientation (a JPEG taken in portrait is often
/// stored landscape with a "rotate 90°" tag) is not applied, and PNG/JPEG densities are ignored.
struct ImageSize: Sendable, Hashable, Codable {
    /// An image file format, and where its size is read from.
    enum Format: String, Sendable, Hashable, Codable, CaseIterable {
        /// PNG: the `IHDR` chunk, which the format requires to come first. Width and height are the
        /// chunk's first two 4-byte big-endian integers (file offsets 16 and 20). Apple's "CgBI"
        /// variant (an extra 4-byte chunk before `IHDR`) is accepted.
        case png
        /// JPEG (JFIF, Exif, or bare): the first start-of-frame segment (SOF0…SOF15, markers
        /// `FFC0`…`FFCF` except `FFC4` DHT, `FFC8` JPG and `FFCC` DAC). After the 2-byte segment length
        /// and the 1-byte sample precision come the number of lines (height) and the samples per line
        /// (width), 2-byte big-endian each. A height of 0 (the size follows the scan in a DNL segment)
        /// is treated as unknown: `nil`.
        case jpeg
        /// GIF: the logical screen descriptor right after the `GIF87a`/`GIF89a` signature: width and
        /// height are 2-byte little-endian integers at offsets 6 and 8. This is the canvas the frames
        /// are drawn on, the size a viewer shows.
        case gif
        /// WebP (a RIFF file of form type `WEBP`), from its first chunk:
        /// - `VP8 ` (simple lossy): the VP8 key frame header, after the 3-byte frame tag and the
        ///   `9D 01 2A` start code: 14-bit width and height (the two upscaling bits above each are
        ///   ignored, as decoders do).
        /// - `VP8L` (simple lossless): after the `2F` signature byte, a 32-bit little-endian word holding
        ///   width − 1 (bits 0–13) and height − 1 (bits 14–27).
        /// - `VP8X` (extended: alpha, animation, ICC, Exif or XMP): the canvas size, 24-bit little-endian
        ///   width − 1 and height − 1 at chunk offsets 4 and 7.
        case webp
    }

    /// The file format the size was read from.
    var format: Format
    /// Width in pixels, as stored (1 ... `maxDimension`).
    var width: Int
    /// Height in pixels, as stored (1 ... `maxDimension`).
    var height: Int

    /// Larger widths or heights are treated as corrupt or hostile: `read` returns `nil`.
    static let maxDimension = 1_000_000

    /// The most bytes `read` looks at. A JPEG's frame header comes after its APPn (Exif with a
    /// thumbnail, ICC profile, XMP), DQT and COM segments, each up to 64 KiB; real files have it within
    /// the first few KiB, rarely past 64 KiB, so the walk gives up after 256 KiB. PNG, GIF and WebP
    /// sizes are within the first 30 bytes. A caller holding only part of a body should pass at least
    /// this much (or all of it if shorter) for JPEGs.
    static let headerPrefixLength = 256 << 10

    /// Reads the format and size from the start of an image file; `nil` if the bytes are not a
    /// recognised image, are truncated before the size, are inconsistent, or give a width or height
    /// of 0 or above `maxDimension`.
    static func read(_ bytes: UnsafeRawBufferPointer) -> ImageSize? {
        let reader = ByteReader(bytes, limit: headerPrefixLength)
        let found: ImageSize?
        if reader.hasPrefix(pngSignature) {
            found = readPNG(reader)
        } else if reader.hasPrefix(gif87aSignature) || reader.hasPrefix(gif89aSignature) {
            found = readGIF(reader)
        } else if reader.hasPrefix([0xFF, 0xD8]) {
            found = readJPEG(reader)
        } else if reader.hasPrefix(riffSignature) {
            found = readWebP(reader)
        } else {
            found = nil
        }
        guard let found, (1...maxDimension).contains(found.width), (1...maxDimension).contains(found.height)
        else { return nil }
        return found
    }

    /// Reads the size from `Data`, `[UInt8]`, `ArraySlice<UInt8>` or any other contiguous bytes.
    static func read(_ data: some ContiguousBytes) -> ImageSize? {
        data.withUnsafeBytes { read($0) }
    }

    // MARK: - Signatures

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let gif87aSignature: [UInt8] = Array("GIF87a".utf8)
    private static let gif89aSignature: [UInt8] = Array("GIF89a".utf8)
    private static let riffSignature: [UInt8] = Array("RIFF".utf8)

    /// A four-character code (chunk type) as a big-endian integer, for comparing with `ByteReader.be32`.
    private static func fourCC(_ code: StaticString) -> UInt32 {
        precondition(code.utf8CodeUnitCount == 4)
        let p = code.utf8Start
        return UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    // MARK: - PNG

    private static func readPNG(_ reader: ByteReader) -> ImageSize? {
        // Signature (8), then chunks: 4-byte length, 4-byte type, data, 4-byte CRC.
        var chunk = 8
        if reader.be32(at: chunk + 4) == fourCC("CgBI") {
            guard reader.be32(at: chunk) == 4 else { return nil }
            chunk += 4 + 4 + 4 + 4
        }
        guard reader.be32(at: chunk) == 13, reader.be32(at: chunk + 4) == fourCC("IHDR"),
            let width = reader.be32(at: chunk + 8), let height = reader.be32(at: chunk + 12)
        else { return nil }
        return ImageSize(format: .png, width: Int(width), height: Int(height))
    }

    // MARK: - GIF

    private static func readGIF(_ reader: ByteReader) -> ImageSize? {
        guard let width = reader.le16(at: 6), let height = reader.le16(at: 8) else { return nil }
        return ImageSize(format: .gif, width: Int(width), height: Int(height))
    }

    // MARK: - JPEG

    /// Walks the marker segments after SOI to the first frame header.
    ///
    /// Each segment is `FF`, a marker byte, and (unless the marker stands alone) a 2-byte big-endian
    /// length that counts itself. Any number of `FF` fill bytes may precede a marker. Every iteration
    /// moves forward by at least one byte, and the reader stops at `headerPrefixLength`, so the walk
    /// always ends.
    private static func readJPEG(_ reader: ByteReader) -> ImageSize? {
        var position = 2  // after SOI
        while true {
            guard reader.byte(at: position) == 0xFF else { return nil }  // not at a marker: corrupt
            // Fill bytes: a marker is the first non-FF byte after one or more FFs.
            position += 1
            while reader.byte(at: position) == 0xFF { position += 1 }
            guard let marker = reader.byte(at: position) else { return nil }
            position += 1
            switch marker {
            case 0x01, 0xD0...0xD7:
                // TEM and RSTn stand alone (no length). Harmless here; keep walking.
                continue
            case 0x00, 0xD8, 0xD9, 0xDA:
                // A stuffed zero outside entropy-coded data, a second SOI, EOI, or the start of scan
                // before any frame header: no size to be found.
                return nil
            default:
                break
            }
            guard let length = reader.be16(at: position), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                // Frame header: length (2), precision (1), lines (2), samples per line (2), components (1), …
                guard length >= 8, let height = reader.be16(at: position + 3),
                    let width = reader.be16(at: position + 5)
                else { return nil }
                return ImageSize(format: .jpeg, width: Int(width), height: Int(height))
            }
            position += Int(length)
        }
    }

    // MARK: - WebP

    private static func readWebP(_ reader: ByteReader) -> ImageSize? {
        // "RIFF", 4-byte little-endian size of what follows, "WEBP", then the first chunk:
        // 4-byte type, 4-byte little-endian payload size, payload at offset 20.
        guard let riffSize = reader.le32(at: 4), reader.be32(at: 8) == fourCC("WEBP"),
            let chunkType = reader.be32(at: 12), let chunkSize = reader.le32(at: 16)
        else { return nil }
        // The first chunk must fit in what the RIFF header says the file holds ("WEBP" + chunk header).
        guard riffSize >= 12, chunkSize <= riffSize - 12 else { return nil }
        let payload = 20
        switch chunkType {
        case fourCC("VP8 "):
            // Frame tag (3 bytes, bit 0 clear for a key frame), start code 9D 01 2A, then the sizes.
            guard chunkSize >= 10, let tag = reader.byte(at: payload), tag & 0x01 == 0,
                reader.byte(at: payload + 3) == 0x9D, reader.byte(at: payload + 4) == 0x01,
                reader.byte(at: payload + 5) == 0x2A,
                let width = reader.le16(at: payload + 6), let height = reader.le16(at: payload + 8)
            else { return nil }
            return ImageSize(format: .webp, width: Int(width & 0x3FFF), height: Int(height & 0x3FFF))
        case fourCC("VP8L"):
            // Signature byte 2F, then width-1 (14 bits), height-1 (14 bits), alpha hint (1), version (3, must be 0).
            guard chunkSize >= 5, reader.byte(at: payload) == 0x2F, let bits = reader.le32(at: payload + 1),
                bits >> 29 == 0
            else { return nil }
            return ImageSize(
                format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        case fourCC("VP8X"):
            // Flags (1), reserved (3), canvas width-1 (24 bits), canvas height-1 (24 bits).
            guard chunkSize >= 10, let width = reader.le24(at: payload + 4),
                let height = reader.le24(at: payload + 7)
            else { return nil }
            return ImageSize(format: .webp, width: Int(width) + 1, height: Int(height) + 1)
        default:
            return nil
        }
    }
}

/// Bounds-checked reads from the first `limit` bytes of a buffer: every accessor returns `nil` for a
/// read that would reach past them (including negative offsets), so parsers never index out of range.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    /// Readable bytes: `min(bytes.count, limit)`.
    let count: Int

    init(_ bytes: UnsafeRawBufferPointer, limit: Int) {
        self.bytes = bytes
        self.count = min(bytes.count, limit)
    }

    /// Whether `size` bytes starting at `offset` are readable.
    @inline(__always)
    private func has(_ offset: Int, _ size: Int) -> Bool {
        offset >= 0 && offset <= count - size
    }

    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard has(0, prefix.count) else { return false }
        for (index, byte) in prefix.enumerated() where bytes[index] != byte { return false }
        return true
    }

    func byte(at offset: Int) -> UInt8? {
        has(offset, 1) ? bytes[offset] : nil
    }

    func be16(at offset: Int) -> UInt16? {
        guard has(offset, 2) else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    func be32(at offset: Int) -> UInt32? {
        guard has(offset, 4) else { return nil }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    func le16(at offset: Int) -> UInt16? {
        guard has(offset, 2) else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    func le24(at offset: Int) -> UInt32? {
        guard has(offset, 3) else { return nil }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    func le32(at offset: Int) -> UInt32? {
        guard has(offset, 4) else { return nil }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
