/*
 * A portable SHA-1 (FIPS 180-4, section 6.1) for the naive network pipeline:
 * the plain algorithm on 32-bit words, no SIMD and no SHA instructions, as a
 * program written in an afternoon would have it. Internal to CBenchBaseline.
 */
#ifndef LOGSTORE_LSB_SHA1_H
#define LOGSTORE_LSB_SHA1_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 20-byte SHA-1 digest of data[0 ..< length] into digest. */
void lsb_sha1(const unsigned char *data, size_t length, unsigned char digest[20]);

#endif
