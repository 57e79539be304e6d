#ifndef LOGSTORE_CZLIB_SHIM_H
#define LOGSTORE_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit / inflateInit are macros over the *_ functions with version and
// struct-size arguments; Swift cannot import function-like macros.
static inline int logstore_deflate_init(z_streamp stream, int level) {
    return deflateInit(stream, level);
}

static inline int logstore_inflate_init(z_streamp stream) {
    return inflateInit(stream);
}

#endif
