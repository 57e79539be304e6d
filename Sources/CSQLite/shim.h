#ifndef LOGSTORE_CSQLITE_SHIM_H
#define LOGSTORE_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT and SQLITE_STATIC are macros casting integers to function
// pointers, which Swift cannot import.
static inline sqlite3_destructor_type logstore_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

static inline sqlite3_destructor_type logstore_sqlite_static(void) {
    return SQLITE_STATIC;
}

// sqlite3_config is variadic; Swift cannot call it directly.
static inline int logstore_sqlite_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// sqlite3_db_config is variadic too: the on/off settings take an int and an int* for the result.
static inline int logstore_sqlite_db_config_flag(sqlite3 *db, int op, int value) {
    int result = -1;
    int code = sqlite3_db_config(db, op, value, &result);
    return code == SQLITE_OK ? result : -1;
}

#endif
