// CityHash128 exactly as CityHash 1.0.2 computes it: the checksum ClickHouse puts before every
// block of its compressed format. Later CityHash releases (1.1 on) changed the short-input
// functions and so the values; ClickHouse kept 1.0.2 for compatibility with data on disk, and a
// server that gets another value rejects the block ("Checksum doesn't match").
//
// Every operation is on UInt64 modulo 2^64 (`&+`, `&*`, …), as in the C original, and words are
// read little-endian whatever the host's order.

/// A 128-bit CityHash (version 1.0.2) of some bytes, as two 64-bit halves.
///
///     let checksum = CityHash128(header + payload)
///     // ClickHouse writes it as `low`, then `high`, each little-endian.
struct CityHash128: Hashable, Sendable {
    /// The low 64 bits (the first of the pair in the C original).
    var low: UInt64
    /// The high 64 bits.
    var high: UInt64

    init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// The hash of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        self = CityHash128.hash(CityBytes(bytes))
    }

    /// The hash of the bytes of an array.
    init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { CityHash128($0) }
    }
}

extension CityHash128 {
    // Primes between 2^63 and 2^64, the algorithm's constants.
    private static let k0: UInt64 = 0xc3a5_c85c_97cb_3127
    private static let k1: UInt64 = 0xb492_b66f_be98_f273
    private static let k2: UInt64 = 0x9ae1_6a3b_2f90_404f
    private static let k3: UInt64 = 0xc949_d7c7_509e_6557
    /// Hash128to64's multiplier (Murmur-inspired).
    private static let kMul: UInt64 = 0x9ddf_ea08_eb38_2d69

    /// The entry point: the first 16 bytes (or what there is) become the seed.
    private static func hash(_ s: CityBytes) -> CityHash128 {
        let count = s.count
        if count >= 16 {
            return withSeed(
                s.dropping(16), seed: CityHash128(low: s.fetch64(0) ^ k3, high: s.fetch64(8)))
        }
        if count >= 8 {
            let seed = CityHash128(
                low: s.fetch64(0) ^ (UInt64(count) &* k0), high: s.fetch64(count - 8) ^ k1)
            return withSeed(s.prefix(0), seed: seed)
        }
        return withSeed(s, seed: CityHash128(low: k0, high: k1))
    }

    private static func withSeed(_ input: CityBytes, seed: CityHash128) -> CityHash128 {
        var s = input
        var count = s.count
        if count < 128 { return murmur(s, seed: seed) }

        // 56 bytes of state: v, w, x, y and z, over 128-byte chunks (two rounds of 64 each).
        var x = seed.low
        var y = seed.high
        var z = UInt64(count) &* k1
        var v0 = rotate(y ^ k1, 49) &* k1 &+ s.fetch64(0)
        var v1 = rotate(v0, 42) &* k1 &+ s.fetch64(8)
        var w0 = rotate(y &+ z, 35) &* k1 &+ x
        var w1 = rotate(x &+ s.fetch64(88), 53) &* k1

        repeat {
            for _ in 0..<2 {
                x = rotate(x &+ y &+ v0 &+ s.fetch64(16), 37) &* k1
                y = rotate(y &+ v1 &+ s.fetch64(48), 42) &* k1
                x ^= w1
                y ^= v0
                z = rotate(z ^ w0, 33)
                (v0, v1) = weakHash32(s, at: 0, v1 &* k1, x &+ w0)
                (w0, w1) = weakHash32(s, at: 32, z &+ w1, y)
                swap(&z, &x)
                s = s.dropping(64)
            }
            count -= 128
        } while count >= 128

        y = y &+ rotate(w0, 37) &* k0 &+ z
        x = x &+ rotate(v0 &+ z, 49) &* k0
        // The rest (under 128 bytes), in up to four 32-byte pieces taken back from its end; the
        // first may overlap bytes already hashed.
        var done = 0
        while done < count {
            done += 32
            y = rotate(y &- x, 42) &* k0 &+ v1
            w0 = w0 &+ s.fetch64(count - done + 16)
            x = rotate(x, 49) &* k0 &+ w0
            w0 = w0 &+ v0
            (v0, v1) = weakHash32(s, at: count - done, v0, v1)
        }
        x = hashLen16(x, v0)
        y = hashLen16(y, w0)
        return CityHash128(
            low: hashLen16(x &+ v1, w1) &+ y,
            high: hashLen16(x &+ w1, y &+ v1))
    }

    /// CityMurmur: the hash of fewer than 128 bytes.
    private static func murmur(_ input: CityBytes, seed: CityHash128) -> CityHash128 {
        var s = input
        let count = s.count
        var a = seed.low
        var b = seed.high
        var c: UInt64
        var d: UInt64
        if count <= 16 {
            a = shiftMix(a &* k1) &* k1
            c = b &* k1 &+ hashLen0to16(s)
            d = shiftMix(a &+ (count >= 8 ? s.fetch64(0) : c))
        } else {
            c = hashLen16(s.fetch64(count - 8) &+ k1, a)
            d = hashLen16(b &+ UInt64(count), c &+ s.fetch64(count - 16))
            a = a &+ d
            // 16 bytes a turn while more than 16 are left before it: the last 1 to 16 bytes are
            // hashed only through c and d above.
            var left = count - 16
            repeat {
                a ^= shiftMix(s.fetch64(0) &* k1) &* k1
                a = a &* k1
                b ^= a
                c ^= shiftMix(s.fetch64(8) &* k1) &* k1
                c = c &* k1
                d ^= c
                s = s.dropping(16)
                left -= 16
            } while left > 0
        }
        a = hashLen16(a, c)
        b = hashLen16(d, b)
        return CityHash128(low: a ^ b, high: hashLen16(b, a))
    }

    private static func hashLen0to16(_ s: CityBytes) -> UInt64 {
        let count = s.count
        if count > 8 {
            let a = s.fetch64(0)
            let b = s.fetch64(count - 8)
            return hashLen16(a, rotate(b &+ UInt64(count), count)) ^ b
        }
        if count >= 4 {
            let a = UInt64(s.fetch32(0))
            return hashLen16(UInt64(count) &+ (a << 3), UInt64(s.fetch32(count - 4)))
        }
        if count > 0 {
            let a = UInt32(s.byte(0))
            let b = UInt32(s.byte(count >> 1))
            let c = UInt32(s.byte(count - 1))
            let y = a &+ (b << 8)
            let z = UInt32(truncatingIfNeeded: count) &+ (c << 2)
            // The C original multiplies 32-bit values by 64-bit constants: both widen first.
            return shiftMix(UInt64(y) &* k2 ^ UInt64(z) &* k3) &* k2
        }
        return k2
    }

    /// 16 bytes of hash of 32 bytes and two seeds ("quick and dirty" in the original).
    private static func weakHash32(_ s: CityBytes, at offset: Int, _ a: UInt64, _ b: UInt64) -> (UInt64, UInt64) {
        let w = s.fetch64(offset)
        let x = s.fetch64(offset + 8)
        let y = s.fetch64(offset + 16)
        let z = s.fetch64(offset + 24)
        var a = a &+ w
        var b = rotate(b &+ a &+ z, 21)
        let c = a
        a = a &+ x
        a = a &+ y
        b = b &+ rotate(a, 44)
        return (a &+ z, b &+ c)
    }

    /// Hash128to64: 128 bits folded to 64.
    private static func hashLen16(_ u: UInt64, _ v: UInt64) -> UInt64 {
        var a = (u ^ v) &* kMul
        a ^= a >> 47
        var b = (v ^ a) &* kMul
        b ^= b >> 47
        return b &* kMul
    }

    private static func shiftMix(_ value: UInt64) -> UInt64 {
        value ^ (value >> 47)
    }

    /// A right rotation; `shift` is in 0..<64 everywhere here (0 leaves the value as it is).
    private static func rotate(_ value: UInt64, _ shift: Int) -> UInt64 {
        shift == 0 ? value : (value &>> UInt64(shift)) | (value &<< UInt64(64 - shift))
    }
}

/// A position in the bytes being hashed. The algorithm reads words at offsets it has checked
/// against the length, some of them before the position (the long hash's last pieces reach back
/// into bytes already hashed): each read asserts, in debug builds, that it stays in the input.
private struct CityBytes {
    private let bytes: UnsafeRawBufferPointer
    /// Where the bytes this window counts end (a prefix ends before `bytes` does).
    private let end: Int
    private let position: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        end = bytes.count
        position = 0
    }

    private init(bytes: UnsafeRawBufferPointer, end: Int, position: Int) {
        self.bytes = bytes
        self.end = end
        self.position = position
    }

    /// How many bytes there are from the position on.
    var count: Int { end - position }

    /// The bytes `offset` on from the position.
    func dropping(_ offset: Int) -> CityBytes {
        CityBytes(bytes: bytes, end: end, position: position + offset)
    }

    /// The first `length` bytes from the position.
    func prefix(_ length: Int) -> CityBytes {
        CityBytes(bytes: bytes, end: position + length, position: position)
    }

    func fetch64(_ offset: Int) -> UInt64 {
        assert(position + offset >= 0 && position + offset + 8 <= end, "read outside the hashed bytes")
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + offset, as: UInt64.self))
    }

    func fetch32(_ offset: Int) -> UInt32 {
        assert(position + offset >= 0 && position + offset + 4 <= end, "read outside the hashed bytes")
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position + offset, as: UInt32.self))
    }

    func byte(_ offset: Int) -> UInt8 {
        assert(position + offset >= 0 && position + offset < end, "read outside the hashed bytes")
        return bytes[position + offset]
    }
}
