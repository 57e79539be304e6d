#ifndef LOGSTORE_CLZ4_SHIM_H
#define LOGSTORE_CLZ4_SHIM_H

// LZ4's block format, for ClickHouse's compressed-block bodies. lz4.h needs no wrapper: its
// functions are plain C, and LZ4_compressBound, a function as well as a macro, is callable.
#include <lz4.h>

#endif
