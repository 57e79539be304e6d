/*
 * CBenchBaseline: the benchmark's plain-C SQLite baseline (naive schema).
 *
 * ROW GENERATOR (the Swift benchmark implements exactly the same one; any
 * change here must be made there too, and the cross-check test will notice).
 *
 * Rows are numbered i = 0, 1, 2, ... as an unsigned 64-bit integer. All
 * arithmetic below is unsigned 64-bit with wrap-around; ">>" is a logical
 * shift, "%" the unsigned remainder; "a % b * c" means (a % b) * c.
 *
 *   splitmix64(x):
 *     z = x + 0x9E3779B97F4A7C15
 *     z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
 *     z = (z ^ (z >> 27)) * 0x94D049BB133111EB
 *     return z ^ (z >> 31)
 *
 *   r = splitmix64(i)
 *
 *   label      = LABELS[r % 20], LABELS being, in this order:
 *                "http", "db", "auth", "cache", "queue", "scheduler",
 *                "mailer", "payments", "search", "storage", "metrics",
 *                "config", "session", "api.v1", "api.v2", "worker", "cron",
 *                "billing", "notifications", "gateway"
 *   level      = (r >> 8) % 7            (0 = trace ... 6 = critical)
 *   text       = printf("Handled request %llu for user %llu in %llu ms: "
 *                       "status=%llu, cache=miss, upstream=api-%02llu.internal, "
 *                       "bytes=%llu",
 *                       i, (r >> 16) % 100000, (r >> 24) % 2000,
 *                       200 + (r >> 32) % 5 * 100, (r >> 40) % 32,
 *                       (r >> 44) % 1000000)
 *                (plain decimal, no separators; "%02llu" pads to at least two
 *                digits with a leading zero; about 110-125 bytes, pure ASCII)
 *   metadata   = if ((r >> 60) & 1) == 1:
 *                  printf("{\"request_id\":\"%016llx\",\"user\":\"%llu\"}",
 *                         r, (r >> 16) % 100000)
 *                  (%016llx: 16 lower-case hex digits, zero padded)
 *                else NULL (SQL NULL, not an empty string)
 *   created_at = 1790000000.0 + (double)i * 0.001   (seconds since 1970, as an
 *                IEEE double: convert i to double, multiply by 0.001, add)
 *   session_id = 1
 *   file       = "Handler.swift"
 *   function   = "handle(_:)"
 *   line       = 42 + r % 100
 *
 * NAIVE SCHEMA (what lsb_insert_naive creates):
 *   CREATE TABLE messages(id INTEGER PRIMARY KEY, created_at REAL NOT NULL,
 *     session_id INTEGER NOT NULL, level INTEGER NOT NULL, label TEXT NOT NULL,
 *     text TEXT NOT NULL, metadata TEXT, file TEXT, function TEXT,
 *     line INTEGER)
 *   plus single-column indexes on created_at, level, label and session_id,
 *   created before the rows are inserted; id is left to SQLite (1, 2, ...).
 *   journal_mode=WAL and synchronous=NORMAL (set explicitly: Debian's build
 *   defaults WAL databases to FULL). lsb_insert_naive_fts adds the FTS5 table
 *   messages_fts (external content, default options) and fills it row by row
 *   in the same transactions. The connection is opened with SQLite's
 *   default threading mode and memory statistics, as ordinary code would.
 */

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "CBenchBaseline.h"

#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------------------------------------------------------- generator */

static const char *const lsb_labels[20] = {
    "http",    "db",      "auth",    "cache",    "queue",
    "scheduler", "mailer", "payments", "search", "storage",
    "metrics", "config",  "session", "api.v1",   "api.v2",
    "worker",  "cron",    "billing", "notifications", "gateway",
};

static uint64_t lsb_mix(uint64_t x) {
    uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int lsb_format_text(uint64_t i, uint64_t r, char *buf, size_t cap) {
    return snprintf(buf, cap,
                    "Handled request %llu for user %llu in %llu ms: "
                    "status=%llu, cache=miss, upstream=api-%02llu.internal, "
                    "bytes=%llu",
                    (unsigned long long)i,
                    (unsigned long long)((r >> 16) % 100000),
                    (unsigned long long)((r >> 24) % 2000),
                    (unsigned long long)(200 + (r >> 32) % 5 * 100),
                    (unsigned long long)((r >> 40) % 32),
                    (unsigned long long)((r >> 44) % 1000000));
}

/* Returns the length written, or -1 when the row has no metadata. */
static int lsb_format_metadata(uint64_t r, char *buf, size_t cap) {
    if (((r >> 60) & 1) == 0) {
        if (cap > 0) buf[0] = '\0';
        return -1;
    }
    return snprintf(buf, cap, "{\"request_id\":\"%016llx\",\"user\":\"%llu\"}",
                    (unsigned long long)r,
                    (unsigned long long)((r >> 16) % 100000));
}

unsigned long long lsb_splitmix64(unsigned long long x) {
    return (unsigned long long)lsb_mix((uint64_t)x);
}

void lsb_row_text(unsigned long long i, char *buf, int cap) {
    if (buf == NULL || cap <= 0) return;
    lsb_format_text((uint64_t)i, lsb_mix((uint64_t)i), buf, (size_t)cap);
}

const char *lsb_label(unsigned long long i) {
    return lsb_labels[lsb_mix((uint64_t)i) % 20];
}

int lsb_row_level(unsigned long long i) {
    return (int)((lsb_mix((uint64_t)i) >> 8) % 7);
}

int lsb_row_metadata(unsigned long long i, char *buf, int cap) {
    char scratch[1];
    if (buf == NULL || cap <= 0) {
        buf = scratch;
        cap = 1;
    }
    return lsb_format_metadata(lsb_mix((uint64_t)i), buf, (size_t)cap) >= 0;
}

/* ------------------------------------------------------------------ helpers */

static double lsb_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static void lsb_set_err(char *err, int errlen, const char *fmt, ...) {
    if (err == NULL || errlen <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
}

/* Records what failed plus SQLite's message; returns rc for convenience. */
static int lsb_fail(sqlite3 *db, int rc, const char *what, char *err,
                    int errlen) {
    const char *msg = db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    lsb_set_err(err, errlen, "%s: %s (%d)", what, msg, rc);
    return rc;
}

static int lsb_exec(sqlite3 *db, const char *sql, char *err, int errlen) {
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        lsb_set_err(err, errlen, "%s: %s (%d)", sql,
                    msg != NULL ? msg : sqlite3_errstr(rc), rc);
    }
    sqlite3_free(msg);
    return rc;
}

static int lsb_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n >= 1 values (sorts them in place); mean of the middle two when
 * n is even. */
static double lsb_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), lsb_cmp_double);
    if (n % 2 == 1) return v[n / 2];
    return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static int lsb_open_existing(const char *path, sqlite3 **db, char *err,
                             int errlen) {
    *db = NULL;
    if (path == NULL) {
        lsb_set_err(err, errlen, "path is NULL");
        return SQLITE_MISUSE;
    }
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(*db, rc, "open", err, errlen);
        sqlite3_close(*db);
        *db = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------------- insert */

/* Ends a writing run: rolls back an open transaction, finalizes, closes, and
 * returns `rc`, or the close's failure when the run itself succeeded. */
static int lsb_finish_write(sqlite3 *db, sqlite3_stmt *st, int in_txn, int rc,
                            char *err, int errlen) {
    if (in_txn) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_finalize(st);
    if (db != NULL) {
        int crc = sqlite3_close(db);
        if (rc == SQLITE_OK && crc != SQLITE_OK) {
            lsb_set_err(err, errlen, "close: %s (%d)", sqlite3_errstr(crc), crc);
            rc = crc;
        }
    }
    return rc;
}

static const char *const lsb_naive_schema =
    "CREATE TABLE messages(id INTEGER PRIMARY KEY, created_at REAL NOT NULL, "
    "session_id INTEGER NOT NULL, level INTEGER NOT NULL, label TEXT NOT NULL, "
    "text TEXT NOT NULL, metadata TEXT, file TEXT, function TEXT, "
    "line INTEGER);"
    "CREATE INDEX messages_created_at ON messages(created_at);"
    "CREATE INDEX messages_level ON messages(level);"
    "CREATE INDEX messages_label ON messages(label);"
    "CREATE INDEX messages_session_id ON messages(session_id);";

static const char *const lsb_naive_insert =
    "INSERT INTO messages(created_at, session_id, level, label, text, "
    "metadata, file, function, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

/* Sets journal_mode=WAL and checks that SQLite actually switched. */
static int lsb_enable_wal(sqlite3 *db, char *err, int errlen) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &st, NULL);
    if (rc != SQLITE_OK) return lsb_fail(db, rc, "journal_mode", err, errlen);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        rc = lsb_fail(db, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
                      "journal_mode", err, errlen);
        sqlite3_finalize(st);
        return rc;
    }
    const unsigned char *mode = sqlite3_column_text(st, 0);
    if (mode == NULL || strcmp((const char *)mode, "wal") != 0) {
        lsb_set_err(err, errlen, "journal_mode=WAL not applied (got %s)",
                    mode != NULL ? (const char *)mode : "NULL");
        sqlite3_finalize(st);
        return SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    return SQLITE_OK;
}

/* Binds row i's values into the naive insert statement. text and meta are
 * scratch buffers that must stay untouched until the statement is stepped. */
static int lsb_bind_row(sqlite3_stmt *st, uint64_t i, char *text,
                        size_t textcap, char *meta, size_t metacap) {
    uint64_t r = lsb_mix(i);
    const char *label = lsb_labels[r % 20];
    int tlen = lsb_format_text(i, r, text, textcap);
    int mlen = lsb_format_metadata(r, meta, metacap);
    int rc;

    if (tlen < 0 || (size_t)tlen >= textcap) return SQLITE_TOOBIG;
    if (mlen >= 0 && (size_t)mlen >= metacap) return SQLITE_TOOBIG;

    if ((rc = sqlite3_bind_double(st, 1, 1790000000.0 + (double)i * 0.001)))
        return rc;
    if ((rc = sqlite3_bind_int64(st, 2, 1))) return rc;
    if ((rc = sqlite3_bind_int(st, 3, (int)((r >> 8) % 7)))) return rc;
    if ((rc = sqlite3_bind_text(st, 4, label, -1, SQLITE_STATIC))) return rc;
    if ((rc = sqlite3_bind_text(st, 5, text, tlen, SQLITE_STATIC))) return rc;
    if (mlen >= 0)
        rc = sqlite3_bind_text(st, 6, meta, mlen, SQLITE_STATIC);
    else
        rc = sqlite3_bind_null(st, 6);
    if (rc) return rc;
    if ((rc = sqlite3_bind_text(st, 7, "Handler.swift", -1, SQLITE_STATIC)))
        return rc;
    if ((rc = sqlite3_bind_text(st, 8, "handle(_:)", -1, SQLITE_STATIC)))
        return rc;
    return sqlite3_bind_int(st, 9, (int)(42 + r % 100));
}

static const char *const lsb_fts_schema =
    "CREATE VIRTUAL TABLE messages_fts USING fts5(text, metadata, "
    "content='messages', content_rowid='id');";

static const char *const lsb_fts_insert =
    "INSERT INTO messages_fts(rowid, text, metadata) "
    "VALUES (last_insert_rowid(), ?, ?)";

/* lsb_insert_naive, and with fts != 0 lsb_insert_naive_fts. */
static int lsb_insert(const char *path, long long count, int rows_per_txn,
                      int fts, double *seconds, char *err, int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_stmt *fst = NULL;
    char text[256];
    char meta[128];
    int in_txn = 0;
    long long in_this_txn = 0;
    double start;
    int rc;

    if (seconds != NULL) *seconds = 0.0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (path == NULL || count < 0 || rows_per_txn <= 0) {
        lsb_set_err(err, errlen,
                    "invalid arguments (path %s, count %lld, rows_per_txn %d)",
                    path == NULL ? "NULL" : "set", count, rows_per_txn);
        return SQLITE_MISUSE;
    }

    /* Create the file exclusively so an existing database is never reused. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        lsb_set_err(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return SQLITE_CANTOPEN;
    }
    close(fd);

    rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "open", err, errlen);
        goto done;
    }
    if ((rc = lsb_enable_wal(db, err, errlen))) goto done;
    if ((rc = lsb_exec(db, "PRAGMA synchronous=NORMAL", err, errlen)))
        goto done;
    if ((rc = lsb_exec(db, lsb_naive_schema, err, errlen))) goto done;
    if (fts && (rc = lsb_exec(db, lsb_fts_schema, err, errlen))) goto done;

    rc = sqlite3_prepare_v2(db, lsb_naive_insert, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare insert", err, errlen);
        goto done;
    }
    if (fts) {
        rc = sqlite3_prepare_v2(db, lsb_fts_insert, -1, &fst, NULL);
        if (rc != SQLITE_OK) {
            lsb_fail(db, rc, "prepare fts insert", err, errlen);
            goto done;
        }
    }

    start = lsb_now();
    for (long long i = 0; i < count; i++) {
        if (!in_txn) {
            if ((rc = lsb_exec(db, "BEGIN", err, errlen))) goto done;
            in_txn = 1;
            in_this_txn = 0;
        }
        rc = lsb_bind_row(st, (uint64_t)i, text, sizeof text, meta,
                          sizeof meta);
        if (rc != SQLITE_OK) {
            lsb_fail(db, rc, "bind", err, errlen);
            goto done;
        }
        rc = sqlite3_step(st);
        if (rc != SQLITE_DONE) {
            lsb_fail(db, rc, "insert", err, errlen);
            goto done;
        }
        sqlite3_reset(st);
        if (fts) {
            /* The buffers still hold this row's values (meta is empty when
             * the row has none: generated metadata never is). */
            if ((rc = sqlite3_bind_text(fst, 1, text, -1, SQLITE_STATIC)) ||
                (rc = meta[0] != '\0'
                          ? sqlite3_bind_text(fst, 2, meta, -1, SQLITE_STATIC)
                          : sqlite3_bind_null(fst, 2))) {
                lsb_fail(db, rc, "bind fts", err, errlen);
                goto done;
            }
            rc = sqlite3_step(fst);
            if (rc != SQLITE_DONE) {
                lsb_fail(db, rc, "fts insert", err, errlen);
                goto done;
            }
            sqlite3_reset(fst);
        }
        if (++in_this_txn == rows_per_txn) {
            if ((rc = lsb_exec(db, "COMMIT", err, errlen))) goto done;
            in_txn = 0;
        }
    }
    if (in_txn) {
        if ((rc = lsb_exec(db, "COMMIT", err, errlen))) goto done;
        in_txn = 0;
    }
    if (seconds != NULL) *seconds = lsb_now() - start;
    rc = SQLITE_OK;

done:
    sqlite3_finalize(fst);
    return lsb_finish_write(db, st, in_txn, rc, err, errlen);
}

int lsb_insert_naive(const char *path, long long count, int rows_per_txn,
                     double *seconds, char *err, int errlen) {
    return lsb_insert(path, count, rows_per_txn, 0, seconds, err, errlen);
}

int lsb_insert_naive_fts(const char *path, long long count, int rows_per_txn,
                         double *seconds, char *err, int errlen) {
    return lsb_insert(path, count, rows_per_txn, 1, seconds, err, errlen);
}

/* ------------------------------------------------------------------- delete */

int lsb_delete_oldest_naive(const char *path, long long through_id,
                            double *seconds, long long *deleted, char *err,
                            int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int in_txn = 0;
    double start;
    int rc;

    if (seconds != NULL) *seconds = 0.0;
    if (deleted != NULL) *deleted = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if ((rc = lsb_open_existing(path, &db, err, errlen))) return rc;
    if ((rc = lsb_exec(db, "PRAGMA synchronous=NORMAL", err, errlen))) goto done;
    rc = sqlite3_prepare_v2(db, "DELETE FROM messages WHERE id <= ?", -1, &st,
                            NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare delete", err, errlen);
        goto done;
    }
    if ((rc = sqlite3_bind_int64(st, 1, through_id))) {
        lsb_fail(db, rc, "bind", err, errlen);
        goto done;
    }

    start = lsb_now();
    if ((rc = lsb_exec(db, "BEGIN", err, errlen))) goto done;
    in_txn = 1;
    rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        lsb_fail(db, rc, "delete", err, errlen);
        goto done;
    }
    if (deleted != NULL) *deleted = sqlite3_changes64(db);
    if ((rc = lsb_exec(db, "COMMIT", err, errlen))) goto done;
    in_txn = 0;
    if (seconds != NULL) *seconds = lsb_now() - start;
    rc = SQLITE_OK;

done:
    return lsb_finish_write(db, st, in_txn, rc, err, errlen);
}

/* ------------------------------------------------------------------ queries */

/* Column reads are summed here so the compiler cannot drop them. */
static volatile size_t lsb_sink;

/* Runs st `repeats` times (binding nothing: the caller binds once), reading
 * every column of every row; reports the median in ms and one run's rows. */
static int lsb_time_statement(sqlite3 *db, sqlite3_stmt *st, int repeats,
                              double *median_ms, long long *rows_out,
                              char *err, int errlen) {
    double *times = malloc(sizeof(double) * (size_t)repeats);
    if (times == NULL) {
        lsb_set_err(err, errlen, "out of memory");
        return SQLITE_NOMEM;
    }
    int ncol = sqlite3_column_count(st);
    long long rows = 0;
    int rc = SQLITE_OK;
    for (int k = 0; k < repeats; k++) {
        size_t sink = 0;
        rows = 0;
        double t0 = lsb_now();
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            rows++;
            for (int c = 0; c < ncol; c++) {
                switch (sqlite3_column_type(st, c)) {
                case SQLITE_INTEGER:
                    sink += (size_t)sqlite3_column_int64(st, c);
                    break;
                case SQLITE_FLOAT:
                    sink += (size_t)(sqlite3_column_double(st, c) > 0);
                    break;
                case SQLITE_TEXT:
                    sink += (size_t)(sqlite3_column_text(st, c) != NULL);
                    sink += (size_t)sqlite3_column_bytes(st, c);
                    break;
                default:
                    break;
                }
            }
        }
        times[k] = (lsb_now() - t0) * 1000.0;
        if (rc != SQLITE_DONE) {
            lsb_fail(db, rc, "query", err, errlen);
            sqlite3_reset(st);
            free(times);
            return rc;
        }
        sqlite3_reset(st);
        lsb_sink += sink;
    }
    if (median_ms != NULL) *median_ms = lsb_median(times, repeats);
    if (rows_out != NULL) *rows_out = rows;
    free(times);
    return SQLITE_OK;
}

int lsb_query_latest(const char *path, const char *label, int min_level,
                     int limit, int repeats, double *median_ms,
                     long long *rows_out, char *err, int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc;

    if (median_ms != NULL) *median_ms = 0.0;
    if (rows_out != NULL) *rows_out = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (label == NULL || repeats <= 0) {
        lsb_set_err(err, errlen, "invalid arguments (label %s, repeats %d)",
                    label == NULL ? "NULL" : "set", repeats);
        return SQLITE_MISUSE;
    }
    if ((rc = lsb_open_existing(path, &db, err, errlen))) return rc;

    rc = sqlite3_prepare_v2(
        db,
        "SELECT id, created_at, level, label, text, metadata FROM messages "
        "WHERE label = ? AND level >= ? ORDER BY created_at DESC LIMIT ?",
        -1, &st, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare query", err, errlen);
        goto done;
    }
    if ((rc = sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT)) ||
        (rc = sqlite3_bind_int(st, 2, min_level)) ||
        (rc = sqlite3_bind_int(st, 3, limit))) {
        lsb_fail(db, rc, "bind", err, errlen);
        goto done;
    }
    rc = lsb_time_statement(db, st, repeats, median_ms, rows_out, err, errlen);

done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int lsb_query_count(const char *path, int min_level, int repeats,
                    double *median_ms, long long *count_out, char *err,
                    int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    double *times = NULL;
    long long count = 0;
    int rc;

    if (median_ms != NULL) *median_ms = 0.0;
    if (count_out != NULL) *count_out = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (repeats <= 0) {
        lsb_set_err(err, errlen, "invalid arguments (repeats %d)", repeats);
        return SQLITE_MISUSE;
    }
    if ((rc = lsb_open_existing(path, &db, err, errlen))) return rc;

    rc = sqlite3_prepare_v2(db,
                            "SELECT count(*) FROM messages WHERE level >= ?",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare query", err, errlen);
        goto done;
    }
    if ((rc = sqlite3_bind_int(st, 1, min_level))) {
        lsb_fail(db, rc, "bind", err, errlen);
        goto done;
    }
    times = malloc(sizeof(double) * (size_t)repeats);
    if (times == NULL) {
        rc = SQLITE_NOMEM;
        lsb_set_err(err, errlen, "out of memory");
        goto done;
    }
    for (int k = 0; k < repeats; k++) {
        double t0 = lsb_now();
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) count = sqlite3_column_int64(st, 0);
        times[k] = (lsb_now() - t0) * 1000.0;
        if (rc != SQLITE_ROW) {
            lsb_fail(db, rc, "query", err, errlen);
            goto done;
        }
        sqlite3_reset(st);
    }
    if (median_ms != NULL) *median_ms = lsb_median(times, repeats);
    if (count_out != NULL) *count_out = count;
    rc = SQLITE_OK;

done:
    free(times);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int lsb_query_sql(const char *path, const char *sql, const char *param,
                  int repeats, double *median_ms, long long *rows_out,
                  char *err, int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc;

    if (median_ms != NULL) *median_ms = 0.0;
    if (rows_out != NULL) *rows_out = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (sql == NULL || repeats <= 0) {
        lsb_set_err(err, errlen, "invalid arguments (sql %s, repeats %d)",
                    sql == NULL ? "NULL" : "set", repeats);
        return SQLITE_MISUSE;
    }
    if ((rc = lsb_open_existing(path, &db, err, errlen))) return rc;
    rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare query", err, errlen);
        goto done;
    }
    if (param != NULL && sqlite3_bind_parameter_count(st) > 0 &&
        (rc = sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT))) {
        lsb_fail(db, rc, "bind", err, errlen);
        goto done;
    }
    rc = lsb_time_statement(db, st, repeats, median_ms, rows_out, err, errlen);

done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int lsb_query_integer(const char *path, const char *sql, long long *value,
                      char *err, int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc;

    if (value != NULL) *value = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (sql == NULL) {
        lsb_set_err(err, errlen, "invalid arguments (sql NULL)");
        return SQLITE_MISUSE;
    }
    if ((rc = lsb_open_existing(path, &db, err, errlen))) return rc;
    rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare query", err, errlen);
        goto done;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (value != NULL) *value = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    } else {
        lsb_fail(db, rc, "query", err, errlen);
    }

done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int lsb_query_summary(const char *path, int buckets, int repeats,
                      double *median_ms, long long *total_out, char *err,
                      int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *range = NULL;
    sqlite3_stmt *st = NULL;
    double *times = NULL;
    long long total = 0;
    int rc;

    if (median_ms != NULL) *median_ms = 0.0;
    if (total_out != NULL) *total_out = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (repeats <= 0 || buckets <= 0) {
        lsb_set_err(err, errlen, "invalid arguments (repeats %d, buckets %d)",
                    repeats, buckets);
        return SQLITE_MISUSE;
    }
    if ((rc = lsb_open_existing(path, &db, err, errlen))) return rc;

    rc = sqlite3_prepare_v2(
        db, "SELECT min(created_at), max(created_at) FROM messages", -1,
        &range, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(
            db,
            "SELECT level, label, min(?3 - 1, CAST((created_at - ?1) / ?2 AS "
            "INTEGER)) AS bucket, count(*) FROM messages "
            "GROUP BY level, label, bucket",
            -1, &st, NULL);
    }
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare query", err, errlen);
        goto done;
    }
    times = malloc(sizeof(double) * (size_t)repeats);
    if (times == NULL) {
        rc = SQLITE_NOMEM;
        lsb_set_err(err, errlen, "out of memory");
        goto done;
    }
    for (int k = 0; k < repeats; k++) {
        double t0 = lsb_now();
        rc = sqlite3_step(range);
        if (rc != SQLITE_ROW) {
            lsb_fail(db, rc, "range", err, errlen);
            goto done;
        }
        double lower = sqlite3_column_double(range, 0);
        double upper = sqlite3_column_double(range, 1);
        sqlite3_reset(range);
        double width = (upper - lower) / buckets;
        sqlite3_bind_double(st, 1, lower);
        sqlite3_bind_double(st, 2, width > 0 ? width : 1);
        sqlite3_bind_int(st, 3, buckets);
        total = 0;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            total += sqlite3_column_int64(st, 3);
        }
        times[k] = (lsb_now() - t0) * 1000.0;
        if (rc != SQLITE_DONE) {
            lsb_fail(db, rc, "query", err, errlen);
            goto done;
        }
        sqlite3_reset(st);
    }
    if (median_ms != NULL) *median_ms = lsb_median(times, repeats);
    if (total_out != NULL) *total_out = total;
    rc = SQLITE_OK;

done:
    free(times);
    sqlite3_finalize(range);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int lsb_open_ms(const char *path, int repeats, double *median_ms, char *err,
                int errlen) {
    if (path == NULL || median_ms == NULL || repeats <= 0 || repeats > 1000) {
        lsb_set_err(err, errlen, "lsb_open_ms: invalid arguments");
        return SQLITE_MISUSE;
    }
    double samples[1000];
    for (int run = 0; run < repeats; run++) {
        double start = lsb_now();
        sqlite3 *db = NULL;
        int rc = lsb_open_existing(path, &db, err, errlen);
        if (rc == SQLITE_OK) {
            rc = lsb_exec(db, "SELECT count(*) FROM sqlite_schema", err, errlen);
        }
        sqlite3_close(db);
        if (rc != SQLITE_OK) return rc;
        samples[run] = (lsb_now() - start) * 1000.0;
    }
    *median_ms = lsb_median(samples, repeats);
    return 0;
}

/* --------------------------------------------------------------------- zlib */

int lsb_zlib_compress_mb_per_s(const unsigned char *data,
                               const size_t *lengths, size_t count, int level,
                               double *mb_per_s,
                               unsigned long long *compressed_bytes,
                               char *err, int errlen) {
    size_t largest = 0;
    size_t total = 0;
    unsigned long long produced = 0;
    unsigned char *out;
    uLongf out_cap;
    double start, seconds;

    if (mb_per_s != NULL) *mb_per_s = 0.0;
    if (compressed_bytes != NULL) *compressed_bytes = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if ((data == NULL && count > 0) || (lengths == NULL && count > 0) ||
        level < -1 || level > 9) {
        lsb_set_err(err, errlen, "invalid arguments (count %zu, level %d)",
                    count, level);
        return Z_STREAM_ERROR;
    }
    for (size_t i = 0; i < count; i++) {
        if (lengths[i] > (size_t)0x7fffffff) {
            lsb_set_err(err, errlen, "body %zu is too large", i);
            return Z_STREAM_ERROR;
        }
        if (lengths[i] > largest) largest = lengths[i];
        total += lengths[i];
    }
    /* One output buffer big enough for any body, allocated before timing. */
    out_cap = compressBound((uLong)largest);
    out = malloc(out_cap > 0 ? out_cap : 1);
    if (out == NULL) {
        lsb_set_err(err, errlen, "out of memory");
        return Z_MEM_ERROR;
    }

    start = lsb_now();
    size_t offset = 0;
    for (size_t i = 0; i < count; i++) {
        uLongf out_len = out_cap;
        int rc = compress2(out, &out_len, data + offset, (uLong)lengths[i],
                           level);
        if (rc != Z_OK) {
            lsb_set_err(err, errlen, "compress2 failed on body %zu: %s (%d)",
                        i, zError(rc), rc);
            free(out);
            return rc;
        }
        produced += out_len;
        offset += lengths[i];
    }
    seconds = lsb_now() - start;
    free(out);

    if (mb_per_s != NULL && seconds > 0) *mb_per_s = (double)total / 1e6 / seconds;
    if (compressed_bytes != NULL) *compressed_bytes = produced;
    return Z_OK;
}

/* ------------------------------------------------------------------- export */

static const char *const lsb_level_names[7] = {
    "TRACE", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL"};

/* Writes s as the inside of a JSON string, one character at a time: quote,
 * backslash and control characters escaped, everything else as is. */
static void lsb_json_string(FILE *out, const unsigned char *s) {
    putc_unlocked('"', out);
    for (; *s != '\0'; s++) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            putc_unlocked('\\', out);
            putc_unlocked(c, out);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else {
            putc_unlocked(c, out);
        }
    }
    putc_unlocked('"', out);
}

int lsb_export_naive(const char *path, const char *out_path, int json,
                     double *seconds, long long *bytes_out,
                     long long *rows_out, char *err, int errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    FILE *out = NULL;
    long long rows = 0;
    int rc;

    if (seconds != NULL) *seconds = 0.0;
    if (bytes_out != NULL) *bytes_out = 0;
    if (rows_out != NULL) *rows_out = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (out_path == NULL) {
        lsb_set_err(err, errlen, "out_path is NULL");
        return SQLITE_MISUSE;
    }
    if ((rc = lsb_open_existing(path, &db, err, errlen))) return rc;
    double start = lsb_now();
    rc = sqlite3_prepare_v2(db,
                            "SELECT id, created_at, level, label, text, "
                            "metadata, file, line FROM messages ORDER BY id",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) {
        lsb_fail(db, rc, "prepare export", err, errlen);
        goto done;
    }
    out = fopen(out_path, "wx");
    if (out == NULL) {
        lsb_set_err(err, errlen, "fopen %s: %s", out_path, strerror(errno));
        rc = SQLITE_CANTOPEN;
        goto done;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        double created = sqlite3_column_double(st, 1);
        time_t whole = (time_t)created;
        int ms = (int)((created - (double)whole) * 1000.0 + 0.5);
        if (ms >= 1000) {
            whole += 1;
            ms -= 1000;
        }
        struct tm parts;
        gmtime_r(&whole, &parts);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &parts);
        int level = sqlite3_column_int(st, 2);
        const char *name = lsb_level_names[level >= 0 && level < 7 ? level : 0];
        const unsigned char *label = sqlite3_column_text(st, 3);
        const unsigned char *text = sqlite3_column_text(st, 4);
        const unsigned char *metadata = sqlite3_column_text(st, 5);
        const unsigned char *file = sqlite3_column_text(st, 6);
        int line = sqlite3_column_int(st, 7);
        if (json) {
            fprintf(out, "{\"type\":\"message\",\"id\":%lld,\"time\":\"%s.%03dZ\",\"level\":",
                    (long long)sqlite3_column_int64(st, 0), stamp, ms);
            lsb_json_string(out, (const unsigned char *)name);
            fputs(",\"label\":", out);
            lsb_json_string(out, label != NULL ? label : (const unsigned char *)"");
            fputs(",\"text\":", out);
            lsb_json_string(out, text != NULL ? text : (const unsigned char *)"");
            /* The stored JSON as it is: a naive program trusts it. */
            fprintf(out, ",\"metadata\":%s,\"file\":", metadata != NULL ? (const char *)metadata : "{}");
            lsb_json_string(out, file != NULL ? file : (const unsigned char *)"");
            fprintf(out, ",\"line\":%d}\n", line);
        } else {
            fprintf(out, "%s.%03dZ %-8s [%s] %s  %s  (%s:%d)\n", stamp, ms, name,
                    label != NULL ? (const char *)label : "",
                    text != NULL ? (const char *)text : "",
                    metadata != NULL ? (const char *)metadata : "",
                    file != NULL ? (const char *)file : "", line);
        }
        rows++;
    }
    if (rc != SQLITE_DONE) {
        lsb_fail(db, rc, "export step", err, errlen);
        goto done;
    }
    rc = SQLITE_OK;
    if (fflush(out) != 0 || fsync(fileno(out)) != 0) {
        lsb_set_err(err, errlen, "write %s: %s", out_path, strerror(errno));
        rc = SQLITE_IOERR;
        goto done;
    }
    if (seconds != NULL) *seconds = lsb_now() - start;
    if (bytes_out != NULL) *bytes_out = (long long)ftello(out);
    if (rows_out != NULL) *rows_out = rows;

done:
    if (out != NULL) fclose(out);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}
