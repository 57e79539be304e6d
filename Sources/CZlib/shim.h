#ifndef LOGSTORE_CZLIB_SHIM_H
#define LOGSTORE_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit / inflateInit are macros over the *_ functions with version and
// struct-size arguments; Swift cannot import function-like macros.
static inline int logstore_deflate_init(z_streamp stream, int level) {
    return deflateInit(stream, level);
}

// The gzip container (RFC 1952) instead of zlib's: what HTTP's `Content-Encoding: gzip` means.
static inline int logstore_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int logstore_inflate_init(z_streamp stream) {
    return inflateInit(stream);
}

#endif
