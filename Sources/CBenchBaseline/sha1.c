/*
 * SHA-1 as FIPS 180-4 specifies it (section 6.1.2): 512-bit blocks, an
 * 80-word message schedule, four rounds of twenty steps. Written for clarity,
 * not speed: the baseline is what straightforward C costs.
 */
#include "lsb_sha1.h"

#include <string.h>

static uint32_t lsb_rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static void lsb_sha1_block(uint32_t h[5], const unsigned char *block) {
    uint32_t w[80];
    for (int t = 0; t < 16; t++) {
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
               (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
    }
    for (int t = 16; t < 80; t++) {
        w[t] = lsb_rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        uint32_t temp = lsb_rotl(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = lsb_rotl(b, 30);
        b = a;
        a = temp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void lsb_sha1(const unsigned char *data, size_t length, unsigned char digest[20]) {
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    size_t whole = length - length % 64;
    for (size_t offset = 0; offset < whole; offset += 64) lsb_sha1_block(h, data + offset);

    /* Padding: 0x80, zeros, then the length in bits as a big-endian 64-bit
     * number, in one or two final blocks. */
    unsigned char tail[128];
    size_t rest = length - whole;
    memset(tail, 0, sizeof tail);
    if (rest > 0) memcpy(tail, data + whole, rest);
    tail[rest] = 0x80;
    size_t tail_length = rest + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++) tail[tail_length - 1 - i] = (unsigned char)(bits >> (8 * i));
    for (size_t offset = 0; offset < tail_length; offset += 64) lsb_sha1_block(h, tail + offset);

    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (unsigned char)(h[i] >> 24);
        digest[4 * i + 1] = (unsigned char)(h[i] >> 16);
        digest[4 * i + 2] = (unsigned char)(h[i] >> 8);
        digest[4 * i + 3] = (unsigned char)h[i];
    }
}
