import Foundation

/// Small but complete image files for the demo's image responses, built byte by byte so their
/// pixel sizes are known (the store reads them from the headers into the task's metadata).
///
/// Each is a file an image viewer opens: a PNG with an 8-bit palette (its pixels in stored, that
/// is uncompressed, deflate blocks), a GIF with a 4-colour table (its LZW codes reset often
/// enough to stay 3 bits wide), and a grey baseline JPEG (every 8×8 block flat, with one-code
/// Huffman tables).
enum DemoImages {
    /// A PNG of `width` × `height` pixels; `random` makes its noisy pixels (photos compress badly).
    static func png(width: Int, height: Int, _ random: inout DemoRandom) -> Data {
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 3, 0, 0, 0]  // 8 bits per pixel, palette, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &file)
        // A warm 16-colour ramp.
        var palette: [UInt8] = []
        for index in 0..<16 {
            let red = 120 + index * 8
            let green = 60 + index * 10
            let blue = 40 + index * 5
            palette += [UInt8(red), UInt8(green), UInt8(blue)]
        }
        appendChunk("PLTE", palette, to: &file)
        // Each row: filter type 0, then one palette index per pixel.
        var pixels: [UInt8] = []
        pixels.reserveCapacity((width + 1) * height)
        for row in 0..<height {
            pixels.append(0)
            for column in 0..<width {
                let shade = (row + column) * 12 / max(1, width + height)
                pixels.append(UInt8(min(15, shade + Int(random.next() & 3))))
            }
        }
        appendChunk("IDAT", storedZlib(pixels), to: &file)
        appendChunk("IEND", [], to: &file)
        return Data(file)
    }

    /// A GIF89a of `width` × `height` pixels (a 1×1 one is the classic tracking pixel).
    static func gif(width: Int, height: Int) -> Data {
        var file = Array("GIF89a".utf8)
        file.appendLittleEndian(UInt16(width))
        file.appendLittleEndian(UInt16(height))
        file += [0xF1, 0, 0]  // a global table of 4 colours, background 0, square pixels
        file += [0xFF, 0xFF, 0xFF, 0x2E, 0x7D, 0x32, 0xF9, 0xA8, 0x25, 0x00, 0x00, 0x00]
        file += [0x21, 0xF9, 4, 0x01, 0, 0, 0, 0]  // graphic control: colour 0 is transparent
        file += [0x2C, 0, 0, 0, 0]
        file.appendLittleEndian(UInt16(width))
        file.appendLittleEndian(UInt16(height))
        file.append(0)  // no local colour table, not interlaced
        // LZW with a minimum code size of 2: clear = 4, end = 5, codes 3 bits wide. A clear
        // code before every pair of pixels keeps the table from growing to 4-bit codes.
        var bits = BitWriter(lsbFirst: true)
        let count = width * height
        for index in 0..<count {
            if index % 2 == 0 { bits.write(4, width: 3) }
            let color = ((index % width) / 4 + (index / width) / 4) % 4
            bits.write(UInt32(color), width: 3)
        }
        bits.write(5, width: 3)
        let data = bits.finished
        file.append(2)
        var offset = 0
        while offset < data.count {
            let length = min(255, data.count - offset)
            file.append(UInt8(length))
            file += data[offset..<(offset + length)]
            offset += length
        }
        file += [0, 0x3B]  // the end of the image data, the trailer
        return Data(file)
    }

    /// A grey baseline JPEG of `width` × `height` pixels.
    static func jpeg(width: Int, height: Int) -> Data {
        var file: [UInt8] = [0xFF, 0xD8]
        // APP0 JFIF 1.01, no density, no thumbnail.
        file += [0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        // DQT: table 0, every coefficient quantised by 1.
        file += [0xFF, 0xDB, 0, 67, 0] + [UInt8](repeating: 1, count: 64)
        // SOF0: 8-bit samples, the size, one component (id 1, no subsampling, table 0).
        file += [0xFF, 0xC0, 0, 11, 8]
        file.appendBigEndian(UInt16(height))
        file.appendBigEndian(UInt16(width))
        file += [1, 1, 0x11, 0]
        // DHT: a DC table whose one code "0" is category 0 (no change), and an AC table whose one
        // code "0" is end-of-block: every block is then two bits, a flat grey square.
        for tableClass: UInt8 in [0x00, 0x10] {
            file += [0xFF, 0xC4, 0, 20, tableClass, 1] + [UInt8](repeating: 0, count: 15) + [0]
        }
        // SOS: one component using DC and AC tables 0, full spectral range.
        file += [0xFF, 0xDA, 0, 8, 1, 1, 0x00, 0, 63, 0]
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        var bits = BitWriter(lsbFirst: false)
        for _ in 0..<blocks { bits.write(0, width: 2) }
        bits.padWithOnes()
        for byte in bits.finished {
            file.append(byte)
            if byte == 0xFF { file.append(0) }  // byte stuffing
        }
        file += [0xFF, 0xD9]
        return Data(file)
    }

    // MARK: Building blocks

    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        file.appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        file += typed
        file.appendBigEndian(crc32(typed))
    }

    /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks.
    private static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let isLast = offset + length == bytes.count
            stream.append(isLast ? 1 : 0)
            stream.appendLittleEndian(UInt16(length))
            stream.appendLittleEndian(~UInt16(length))
            stream += bytes[offset..<(offset + length)]
            offset += length
        } while offset < bytes.count
        stream.appendBigEndian(adler32(bytes))
        return stream
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// CRC-32 (ISO 3309, as PNG uses it).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// Adler-32 (RFC 1950).
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}

/// Packs codes into bytes: least significant bit first (GIF's LZW) or most significant first
/// (JPEG's entropy-coded data).
private struct BitWriter {
    let lsbFirst: Bool
    private(set) var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var used = 0

    init(lsbFirst: Bool) {
        self.lsbFirst = lsbFirst
    }

    mutating func write(_ code: UInt32, width: Int) {
        for bit in 0..<width {
            let value = lsbFirst ? (code >> bit) & 1 : (code >> (width - 1 - bit)) & 1
            current |= lsbFirst ? value << used : value << (7 - used)
            used += 1
            if used == 8 { emit() }
        }
    }

    /// The bytes written, the last one completed with 0 bits.
    var finished: [UInt8] {
        used == 0 ? bytes : bytes + [UInt8(current)]
    }

    /// Fills the last byte with 1 bits (JPEG's padding).
    mutating func padWithOnes() {
        while used != 0 { write(1, width: 1) }
    }

    private mutating func emit() {
        bytes.append(UInt8(current))
        current = 0
        used = 0
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendBigEndian(_ value: UInt16) {
        append(contentsOf: [UInt8(value >> 8), UInt8(value & 0xFF)])
    }

    mutating func appendLittleEndian(_ value: UInt16) {
        append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8)])
    }
}
