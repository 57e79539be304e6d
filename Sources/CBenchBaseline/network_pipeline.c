/*
 * The naive C pipeline for network tasks (see CBenchNetwork.h): what a
 * program written in an afternoon does with each finished HTTP exchange, on
 * one thread, with one prepared statement per insert site.
 *
 * NAIVE SCHEMA: the messages table and four indexes of lsb_insert_naive with
 * a task_id column, plus
 *   CREATE TABLE blobs(id INTEGER PRIMARY KEY, key BLOB NOT NULL,
 *     size INTEGER NOT NULL, decompressed_size INTEGER NOT NULL,
 *     compressed INTEGER NOT NULL, data BLOB NOT NULL)
 *   CREATE UNIQUE INDEX blobs_key ON blobs(key)
 *   CREATE TABLE tasks(id INTEGER PRIMARY KEY, created_at REAL NOT NULL,
 *     method TEXT, url TEXT, host TEXT, status_code INTEGER, duration REAL,
 *     request_headers TEXT, response_headers TEXT,
 *     request_body_id INTEGER, response_body_id INTEGER,
 *     request_body_size INTEGER, response_body_size INTEGER)
 *   CREATE INDEX tasks_created_at ON tasks(created_at)
 * A repeated body is looked up and referenced; nothing counts its links.
 *
 * Per task, in this order: fill the four parts (the bodies and header JSON,
 * as the benchmark's producers build theirs); for each body its SHA-1,
 *   SELECT id FROM blobs WHERE key = ?
 * and, when absent, compress2 at the given level (the compressed bytes kept
 * when smaller) and INSERT INTO blobs; then INSERT INTO tasks (created_at from
 * CLOCK_REALTIME, the request line, status, a duration, both heads' JSON, the
 * body ids and sizes) and INSERT INTO messages (the task's technical message:
 * label "network", level 1 (debug), text "METHOD URL STATUS", metadata
 * {"taskID":"<a UUID>"}, task_id). BEGIN and COMMIT every tasks_per_txn tasks.
 */

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "CBenchNetwork.h"
#include "CBenchBaseline.h"
#include "lsb_net_workload.h"
#include "lsb_sha1.h"

#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static const char *const lsb_net_schema =
    "PRAGMA synchronous=NORMAL;"
    "CREATE TABLE messages(id INTEGER PRIMARY KEY, created_at REAL NOT NULL, "
    "session_id INTEGER NOT NULL, level INTEGER NOT NULL, label TEXT NOT NULL, "
    "text TEXT NOT NULL, metadata TEXT, file TEXT, function TEXT, "
    "line INTEGER, task_id INTEGER);"
    "CREATE INDEX messages_created_at ON messages(created_at);"
    "CREATE INDEX messages_level ON messages(level);"
    "CREATE INDEX messages_label ON messages(label);"
    "CREATE INDEX messages_session_id ON messages(session_id);"
    "CREATE TABLE blobs(id INTEGER PRIMARY KEY, key BLOB NOT NULL, "
    "size INTEGER NOT NULL, decompressed_size INTEGER NOT NULL, "
    "compressed INTEGER NOT NULL, data BLOB NOT NULL);"
    "CREATE UNIQUE INDEX blobs_key ON blobs(key);"
    "CREATE TABLE tasks(id INTEGER PRIMARY KEY, created_at REAL NOT NULL, "
    "method TEXT, url TEXT, host TEXT, status_code INTEGER, duration REAL, "
    "request_headers TEXT, response_headers TEXT, "
    "request_body_id INTEGER, response_body_id INTEGER, "
    "request_body_size INTEGER, response_body_size INTEGER);"
    "CREATE INDEX tasks_created_at ON tasks(created_at);";

enum { LSB_LOOKUP, LSB_BLOB, LSB_TASK, LSB_MESSAGE, LSB_STATEMENTS };

static const char *const lsb_net_sql[LSB_STATEMENTS] = {
    "SELECT id FROM blobs WHERE key = ?",
    "INSERT INTO blobs(key, size, decompressed_size, compressed, data) VALUES (?, ?, ?, ?, ?)",
    "INSERT INTO tasks(created_at, method, url, host, status_code, duration, request_headers, "
    "response_headers, request_body_id, response_body_id, request_body_size, response_body_size) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ("INSERT INTO messages(created_at, session_id, level, label, text, metadata, file, function, "
     "line, task_id) VALUES (?, 1, 1, 'network', ?, ?, '', '', 0, ?)"),
};

/* Everything one run holds: the connection, its statements and the buffers
 * a task is built in (allocated once, before the clock starts). */
struct lsb_net_run {
    sqlite3 *db;
    sqlite3_stmt *statements[LSB_STATEMENTS];
    unsigned char *parts[LSB_NET_PARTS];
    long lengths[LSB_NET_PARTS];
    unsigned char *compressed;
    uLongf compressed_cap;
    long long blobs;
    int level;
    char *err;
    int errlen;
};

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static void lsb_pipe_err(char *err, int errlen, const char *fmt, ...) {
    if (err == NULL || errlen <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
}

static int lsb_pipe_fail(struct lsb_net_run *run, int rc, const char *what) {
    lsb_pipe_err(run->err, run->errlen, "%s: %s (%d)", what,
                 run->db != NULL ? sqlite3_errmsg(run->db) : sqlite3_errstr(rc), rc);
    return rc;
}

static int lsb_pipe_exec(struct lsb_net_run *run, const char *sql) {
    int rc = sqlite3_exec(run->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? rc : lsb_pipe_fail(run, rc, sql);
}

static double lsb_pipe_cpu(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec * 1e-6 +
           (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec * 1e-6;
}

static double lsb_pipe_clock(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Steps a statement that returns no row and resets it. */
static int lsb_pipe_run(struct lsb_net_run *run, sqlite3_stmt *st, const char *what) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SQLITE_OK : lsb_pipe_fail(run, rc, what);
}

/* The blob id of body `part` of the task being built: found by key, or
 * compressed and inserted. */
static int lsb_pipe_store_body(struct lsb_net_run *run, int part, sqlite3_int64 *id) {
    const unsigned char *body = run->parts[part];
    size_t length = (size_t)run->lengths[part];
    unsigned char key[20];
    lsb_sha1(body, length, key);

    sqlite3_stmt *lookup = run->statements[LSB_LOOKUP];
    sqlite3_bind_blob(lookup, 1, key, 20, SQLITE_STATIC);
    int rc = sqlite3_step(lookup);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(lookup, 0);
        sqlite3_reset(lookup);
        return SQLITE_OK;
    }
    sqlite3_reset(lookup);
    if (rc != SQLITE_DONE) return lsb_pipe_fail(run, rc, "blob lookup");

    uLongf compressed_length = run->compressed_cap;
    int zrc = compress2(run->compressed, &compressed_length, body, (uLong)length, run->level);
    if (zrc != Z_OK) {
        lsb_pipe_err(run->err, run->errlen, "compress2: %s (%d)", zError(zrc), zrc);
        return SQLITE_ERROR;
    }
    int is_compressed = compressed_length < length;
    const unsigned char *stored = is_compressed ? run->compressed : body;
    size_t stored_length = is_compressed ? (size_t)compressed_length : length;
    sqlite3_stmt *insert = run->statements[LSB_BLOB];
    sqlite3_bind_blob(insert, 1, key, 20, SQLITE_STATIC);
    sqlite3_bind_int64(insert, 2, (sqlite3_int64)stored_length);
    sqlite3_bind_int64(insert, 3, (sqlite3_int64)length);
    sqlite3_bind_int(insert, 4, is_compressed);
    sqlite3_bind_blob(insert, 5, stored, (int)stored_length, SQLITE_STATIC);
    if ((rc = lsb_pipe_run(run, insert, "blob insert"))) return rc;
    *id = sqlite3_last_insert_rowid(run->db);
    run->blobs++;
    return SQLITE_OK;
}

/* Builds and stores task `task`: its parts, bodies, task row and message. */
static int lsb_pipe_task(struct lsb_net_run *run, const lsb_net_workload *w, unsigned long long task) {
    for (int p = 0; p < LSB_NET_PARTS; p++) {
        run->lengths[p] = lsb_net_part(w, task, p, run->parts[p], lsb_net_largest_part(w));
    }
    sqlite3_int64 request_id, response_id;
    int rc;
    if ((rc = lsb_pipe_store_body(run, LSB_NET_REQUEST_BODY, &request_id)) ||
        (rc = lsb_pipe_store_body(run, LSB_NET_RESPONSE_BODY, &response_id))) {
        return rc;
    }
    double now = lsb_pipe_clock(CLOCK_REALTIME);
    uint64_t r = lsb_splitmix64(task ^ 0x7A5C);
    sqlite3_stmt *st = run->statements[LSB_TASK];
    sqlite3_bind_double(st, 1, now);
    sqlite3_bind_text(st, 2, w->method, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, w->url, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, w->host, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, w->status);
    sqlite3_bind_double(st, 6, (double)(r % 2000) / 1000.0);
    sqlite3_bind_text(st, 7, (const char *)run->parts[LSB_NET_REQUEST_HEAD],
                      (int)run->lengths[LSB_NET_REQUEST_HEAD], SQLITE_STATIC);
    sqlite3_bind_text(st, 8, (const char *)run->parts[LSB_NET_RESPONSE_HEAD],
                      (int)run->lengths[LSB_NET_RESPONSE_HEAD], SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, request_id);
    sqlite3_bind_int64(st, 10, response_id);
    sqlite3_bind_int64(st, 11, run->lengths[LSB_NET_REQUEST_BODY]);
    sqlite3_bind_int64(st, 12, run->lengths[LSB_NET_RESPONSE_BODY]);
    if ((rc = lsb_pipe_run(run, st, "task insert"))) return rc;
    sqlite3_int64 task_row = sqlite3_last_insert_rowid(run->db);

    char text[1200];
    char metadata[64];
    uint64_t u = lsb_splitmix64(r);
    int text_length = snprintf(text, sizeof text, "%s %s %d", w->method, w->url, w->status);
    int metadata_length = snprintf(
        metadata, sizeof metadata, "{\"taskID\":\"%08llX-%04llX-4%03llX-A%03llX-%012llX\"}",
        (unsigned long long)(r >> 32), (unsigned long long)((r >> 16) & 0xFFFF),
        (unsigned long long)(r & 0xFFF), (unsigned long long)(u >> 52),
        (unsigned long long)(u & UINT64_C(0xFFFFFFFFFFFF)));
    st = run->statements[LSB_MESSAGE];
    sqlite3_bind_double(st, 1, now);
    sqlite3_bind_text(st, 2, text, text_length, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, metadata, metadata_length, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, task_row);
    return lsb_pipe_run(run, st, "message insert");
}

static int lsb_pipe_open(struct lsb_net_run *run, const char *db_path) {
    /* Create the file exclusively so an existing database is never reused. */
    int fd = open(db_path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        lsb_pipe_err(run->err, run->errlen, "cannot create %s: %s", db_path, strerror(errno));
        return SQLITE_CANTOPEN;
    }
    close(fd);
    int rc = sqlite3_open_v2(db_path, &run->db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) return lsb_pipe_fail(run, rc, "open");
    if ((rc = lsb_pipe_exec(run, "PRAGMA journal_mode=WAL"))) return rc;
    if ((rc = lsb_pipe_exec(run, lsb_net_schema))) return rc;
    for (int s = 0; s < LSB_STATEMENTS; s++) {
        rc = sqlite3_prepare_v2(run->db, lsb_net_sql[s], -1, &run->statements[s], NULL);
        if (rc != SQLITE_OK) return lsb_pipe_fail(run, rc, lsb_net_sql[s]);
    }
    return SQLITE_OK;
}

int lsb_network_naive(const char *workload_path, const char *db_path, long long count,
                      int tasks_per_txn, int level, double *seconds, double *cpu_seconds,
                      long long *blobs, char *err, int errlen) {
    struct lsb_net_run run;
    memset(&run, 0, sizeof run);
    run.level = level;
    run.err = err;
    run.errlen = errlen;
    lsb_net_workload *workload = NULL;
    int in_txn = 0;
    int rc;

    if (err != NULL && errlen > 0) err[0] = '\0';
    if (db_path == NULL || count < 0 || tasks_per_txn <= 0 || level < -1 || level > 9) {
        lsb_pipe_err(err, errlen, "invalid arguments (count %lld, tasks_per_txn %d, level %d)",
                     count, tasks_per_txn, level);
        return SQLITE_MISUSE;
    }
    if ((rc = lsb_net_load(workload_path, &workload, err, errlen))) return rc;
    size_t largest = lsb_net_largest_part(workload);
    run.compressed_cap = compressBound((uLong)largest);
    run.compressed = malloc(run.compressed_cap);
    for (int p = 0; p < LSB_NET_PARTS; p++) run.parts[p] = malloc(largest);
    for (int p = 0; p < LSB_NET_PARTS; p++) {
        if (run.parts[p] == NULL || run.compressed == NULL) {
            lsb_pipe_err(err, errlen, "out of memory");
            rc = SQLITE_NOMEM;
            goto done;
        }
    }
    if ((rc = lsb_pipe_open(&run, db_path))) goto done;

    double start = lsb_pipe_clock(CLOCK_MONOTONIC);
    double start_cpu = lsb_pipe_cpu();
    for (long long task = 0; task < count; task++) {
        if (!in_txn) {
            if ((rc = lsb_pipe_exec(&run, "BEGIN"))) goto done;
            in_txn = 1;
        }
        if ((rc = lsb_pipe_task(&run, workload, (unsigned long long)task))) goto done;
        if ((task + 1) % tasks_per_txn == 0 || task + 1 == count) {
            if ((rc = lsb_pipe_exec(&run, "COMMIT"))) goto done;
            in_txn = 0;
        }
    }
    if (seconds != NULL) *seconds = lsb_pipe_clock(CLOCK_MONOTONIC) - start;
    if (cpu_seconds != NULL) *cpu_seconds = lsb_pipe_cpu() - start_cpu;
    if (blobs != NULL) *blobs = run.blobs;

done:
    if (in_txn) sqlite3_exec(run.db, "ROLLBACK", NULL, NULL, NULL);
    for (int s = 0; s < LSB_STATEMENTS; s++) sqlite3_finalize(run.statements[s]);
    if (run.db != NULL) {
        int crc = sqlite3_close(run.db);
        if (rc == SQLITE_OK && crc != SQLITE_OK) {
            lsb_pipe_err(err, errlen, "close: %s (%d)", sqlite3_errstr(crc), crc);
            rc = crc;
        }
    }
    for (int p = 0; p < LSB_NET_PARTS; p++) free(run.parts[p]);
    free(run.compressed);
    lsb_net_free(workload);
    return rc;
}
