// SHA-1's compression function, kept apart from the streaming hasher (SHA1.swift) because it is
// long: the 80 rounds are written out by hand.

extension SHA1 {
    @inline(__always) private static func rotl1(_ x: UInt32) -> UInt32 { (x &<< 1) | (x &>> 31) }
    @inline(__always) private static func rotl5(_ x: UInt32) -> UInt32 { (x &<< 5) | (x &>> 27) }
    @inline(__always) private static func rotl30(_ x: UInt32) -> UInt32 { (x &<< 30) | (x &>> 2) }

    @inline(__always)
    private static func load(_ p: UnsafeRawPointer, _ word: Int) -> UInt32 {
        UInt32(bigEndian: p.loadUnaligned(fromByteOffset: word &* 4, as: UInt32.self))
    }

    /// Processes `blocks` consecutive 64-byte blocks starting at `input`.
    ///
    /// The 80 rounds are written out: round t works on the variables (a,b,c,d,e) rotated by t mod 5,
    /// which replaces the five register moves per round of the textbook loop, and W[t] for t ≥ 16 is
    /// computed in a 16-word window (w[t mod 16]) as
    /// W[t] = ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]).
    /// Round functions (FIPS 180-4 §4.1.1, rewritten with fewer operations):
    /// Ch(b,c,d) = d ^ (b & (c ^ d)); Parity = b ^ c ^ d; Maj = (b & c) + (d & (b ^ c)) (the two terms
    /// never share a set bit, so + equals |, and the two halves can be added into e independently).
    ///
    /// Measured alternatives (same data, same run): the textbook operand order and `|` in Maj ran at the
    /// same speed (~840 MB/s best case in memory); computing the schedule four words at a time with
    /// SIMD4<UInt32> into a stack buffer was ~28 % slower on this target (baseline x86-64 has no byte
    /// shuffle, and the vector-store/scalar-load traffic defeated store forwarding), so the schedule
    /// stays scalar and in registers.
    static func compress(_ state: inout State, _ input: UnsafeRawPointer, blocks: Int) {
        let k0: UInt32 = 0x5A82_7999
        let k1: UInt32 = 0x6ED9_EBA1
        let k2: UInt32 = 0x8F1B_BCDC
        let k3: UInt32 = 0xCA62_C1D6
        var h0 = state.h0, h1 = state.h1, h2 = state.h2, h3 = state.h3, h4 = state.h4
        var block = input
        for _ in 0..<blocks {
            var w0 = load(block, 0)
            var w1 = load(block, 1)
            var w2 = load(block, 2)
            var w3 = load(block, 3)
            var w4 = load(block, 4)
            var w5 = load(block, 5)
            var w6 = load(block, 6)
            var w7 = load(block, 7)
            var w8 = load(block, 8)
            var w9 = load(block, 9)
            var w10 = load(block, 10)
            var w11 = load(block, 11)
            var w12 = load(block, 12)
            var w13 = load(block, 13)
            var w14 = load(block, 14)
            var w15 = load(block, 15)
            var a = h0, b = h1, c = h2, d = h3, e = h4

            e = e &+ k0 &+ w0 &+ (d ^ (b & (c ^ d))) &+ rotl5(a); b = rotl30(b)
            d = d &+ k0 &+ w1 &+ (c ^ (a & (b ^ c))) &+ rotl5(e); a = rotl30(a)
            c = c &+ k0 &+ w2 &+ (b ^ (e & (a ^ b))) &+ rotl5(d); e = rotl30(e)
            b = b &+ k0 &+ w3 &+ (a ^ (d & (e ^ a))) &+ rotl5(c); d = rotl30(d)
            a = a &+ k0 &+ w4 &+ (e ^ (c & (d ^ e))) &+ rotl5(b); c = rotl30(c)
            e = e &+ k0 &+ w5 &+ (d ^ (b & (c ^ d))) &+ rotl5(a); b = rotl30(b)
            d = d &+ k0 &+ w6 &+ (c ^ (a & (b ^ c))) &+ rotl5(e); a = rotl30(a)
            c = c &+ k0 &+ w7 &+ (b ^ (e & (a ^ b))) &+ rotl5(d); e = rotl30(e)
            b = b &+ k0 &+ w8 &+ (a ^ (d & (e ^ a))) &+ rotl5(c); d = rotl30(d)
            a = a &+ k0 &+ w9 &+ (e ^ (c & (d ^ e))) &+ rotl5(b); c = rotl30(c)
            e = e &+ k0 &+ w10 &+ (d ^ (b & (c ^ d))) &+ rotl5(a); b = rotl30(b)
            d = d &+ k0 &+ w11 &+ (c ^ (a & (b ^ c))) &+ rotl5(e); a = rotl30(a)
            c = c &+ k0 &+ w12 &+ (b ^ (e & (a ^ b))) &+ rotl5(d); e = rotl30(e)
            b = b &+ k0 &+ w13 &+ (a ^ (d & (e ^ a))) &+ rotl5(c); d = rotl30(d)
            a = a &+ k0 &+ w14 &+ (e ^ (c & (d ^ e))) &+ rotl5(b); c = rotl30(c)
            e = e &+ k0 &+ w15 &+ (d ^ (b & (c ^ d))) &+ rotl5(a); b = rotl30(b)
            w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
            d = d &+ k0 &+ w0 &+ (c ^ (a & (b ^ c))) &+ rotl5(e); a = rotl30(a)
            w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
            c = c &+ k0 &+ w1 &+ (b ^ (e & (a ^ b))) &+ rotl5(d); e = rotl30(e)
            w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
            b = b &+ k0 &+ w2 &+ (a ^ (d & (e ^ a))) &+ rotl5(c); d = rotl30(d)
            w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
            a = a &+ k0 &+ w3 &+ (e ^ (c & (d ^ e))) &+ rotl5(b); c = rotl30(c)
            w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
            e = e &+ k1 &+ w4 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
            d = d &+ k1 &+ w5 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
            c = c &+ k1 &+ w6 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
            b = b &+ k1 &+ w7 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
            a = a &+ k1 &+ w8 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)
            w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
            e = e &+ k1 &+ w9 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
            d = d &+ k1 &+ w10 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
            c = c &+ k1 &+ w11 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
            b = b &+ k1 &+ w12 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
            a = a &+ k1 &+ w13 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)
            w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
            e = e &+ k1 &+ w14 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
            d = d &+ k1 &+ w15 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
            c = c &+ k1 &+ w0 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
            b = b &+ k1 &+ w1 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
            a = a &+ k1 &+ w2 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)
            w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
            e = e &+ k1 &+ w3 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
            d = d &+ k1 &+ w4 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
            c = c &+ k1 &+ w5 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
            b = b &+ k1 &+ w6 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
            a = a &+ k1 &+ w7 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)
            w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
            e = e &+ k2 &+ w8 &+ (b & c) &+ (d & (b ^ c)) &+ rotl5(a); b = rotl30(b)
            w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
            d = d &+ k2 &+ w9 &+ (a & b) &+ (c & (a ^ b)) &+ rotl5(e); a = rotl30(a)
            w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
            c = c &+ k2 &+ w10 &+ (e & a) &+ (b & (e ^ a)) &+ rotl5(d); e = rotl30(e)
            w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
            b = b &+ k2 &+ w11 &+ (d & e) &+ (a & (d ^ e)) &+ rotl5(c); d = rotl30(d)
            w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
            a = a &+ k2 &+ w12 &+ (c & d) &+ (e & (c ^ d)) &+ rotl5(b); c = rotl30(c)
            w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
            e = e &+ k2 &+ w13 &+ (b & c) &+ (d & (b ^ c)) &+ rotl5(a); b = rotl30(b)
            w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
            d = d &+ k2 &+ w14 &+ (a & b) &+ (c & (a ^ b)) &+ rotl5(e); a = rotl30(a)
            w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
            c = c &+ k2 &+ w15 &+ (e & a) &+ (b & (e ^ a)) &+ rotl5(d); e = rotl30(e)
            w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
            b = b &+ k2 &+ w0 &+ (d & e) &+ (a & (d ^ e)) &+ rotl5(c); d = rotl30(d)
            w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
            a = a &+ k2 &+ w1 &+ (c & d) &+ (e & (c ^ d)) &+ rotl5(b); c = rotl30(c)
            w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
            e = e &+ k2 &+ w2 &+ (b & c) &+ (d & (b ^ c)) &+ rotl5(a); b = rotl30(b)
            w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
            d = d &+ k2 &+ w3 &+ (a & b) &+ (c & (a ^ b)) &+ rotl5(e); a = rotl30(a)
            w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
            c = c &+ k2 &+ w4 &+ (e & a) &+ (b & (e ^ a)) &+ rotl5(d); e = rotl30(e)
            w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
            b = b &+ k2 &+ w5 &+ (d & e) &+ (a & (d ^ e)) &+ rotl5(c); d = rotl30(d)
            w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
            a = a &+ k2 &+ w6 &+ (c & d) &+ (e & (c ^ d)) &+ rotl5(b); c = rotl30(c)
            w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
            e = e &+ k2 &+ w7 &+ (b & c) &+ (d & (b ^ c)) &+ rotl5(a); b = rotl30(b)
            w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
            d = d &+ k2 &+ w8 &+ (a & b) &+ (c & (a ^ b)) &+ rotl5(e); a = rotl30(a)
            w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
            c = c &+ k2 &+ w9 &+ (e & a) &+ (b & (e ^ a)) &+ rotl5(d); e = rotl30(e)
            w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
            b = b &+ k2 &+ w10 &+ (d & e) &+ (a & (d ^ e)) &+ rotl5(c); d = rotl30(d)
            w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
            a = a &+ k2 &+ w11 &+ (c & d) &+ (e & (c ^ d)) &+ rotl5(b); c = rotl30(c)
            w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
            e = e &+ k3 &+ w12 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
            d = d &+ k3 &+ w13 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
            c = c &+ k3 &+ w14 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
            b = b &+ k3 &+ w15 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
            a = a &+ k3 &+ w0 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)
            w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
            e = e &+ k3 &+ w1 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
            d = d &+ k3 &+ w2 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
            c = c &+ k3 &+ w3 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
            b = b &+ k3 &+ w4 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
            a = a &+ k3 &+ w5 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)
            w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
            e = e &+ k3 &+ w6 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
            d = d &+ k3 &+ w7 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
            c = c &+ k3 &+ w8 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
            b = b &+ k3 &+ w9 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
            a = a &+ k3 &+ w10 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)
            w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
            e = e &+ k3 &+ w11 &+ (b ^ c ^ d) &+ rotl5(a); b = rotl30(b)
            w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
            d = d &+ k3 &+ w12 &+ (a ^ b ^ c) &+ rotl5(e); a = rotl30(a)
            w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
            c = c &+ k3 &+ w13 &+ (e ^ a ^ b) &+ rotl5(d); e = rotl30(e)
            w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
            b = b &+ k3 &+ w14 &+ (d ^ e ^ a) &+ rotl5(c); d = rotl30(d)
            w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
            a = a &+ k3 &+ w15 &+ (c ^ d ^ e) &+ rotl5(b); c = rotl30(c)

            h0 = h0 &+ a
            h1 = h1 &+ b
            h2 = h2 &+ c
            h3 = h3 &+ d
            h4 = h4 &+ e
            block += blockSize
        }
        state.h0 = h0
        state.h1 = h1
        state.h2 = h2
        state.h3 = h3
        state.h4 = h4
    }
}
