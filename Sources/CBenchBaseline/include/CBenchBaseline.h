#ifndef LOGSTORE_CBENCHBASELINE_H
#define LOGSTORE_CBENCHBASELINE_H

/*
 * CBenchBaseline: a plain-C SQLite baseline for the LogStore benchmark.
 *
 * It stores the benchmark's generated rows in the "naive" schema (label as
 * text, four single-column indexes) so the Swift store can be compared with
 * straightforward C in the same run. The row generator is specified at the top
 * of baseline.c; the Swift benchmark implements the same one and can
 * cross-check it with lsb_row_text / lsb_label / lsb_row_metadata.
 *
 * Every lsb_insert / lsb_query function returns 0 on success or an SQLite
 * result code (SQLITE_MISUSE for bad arguments, SQLITE_CANTOPEN when the
 * database file cannot be created) and then writes a NUL-terminated message
 * into err (at most errlen bytes, including the NUL; err may be NULL when
 * errlen is 0).
 *
 * lsb_zlib_compress_mb_per_s is the plain-zlib baseline for compressing
 * network bodies (it returns zlib result codes instead).
 */

#include <stddef.h>

#include "CBenchNetwork.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Creates a fresh database at path (fails if the file already exists) with
 * journal_mode=WAL, synchronous=NORMAL, the naive messages table and indexes
 * on created_at, level, label and session_id, then inserts count generated
 * rows (rows 0 ..< count) with one prepared statement, rows_per_txn rows per
 * transaction. *seconds receives the wall time of the inserts only (schema
 * creation and closing are not included). The database is closed on return.
 */
int lsb_insert_naive(const char *path, long long count, int rows_per_txn,
                     double *seconds, char *err, int errlen);

/*
 * lsb_insert_naive with full-text search, as a naive program adds it: the
 * same database, plus
 *   CREATE VIRTUAL TABLE messages_fts USING fts5(text, metadata,
 *     content='messages', content_rowid='id')
 * (default FTS5 options otherwise) created with the schema, and per row, in
 * the same transaction right after the row's insert,
 *   INSERT INTO messages_fts(rowid, text, metadata)
 *     VALUES (last_insert_rowid(), ?, ?)
 * *seconds covers the inserts and their commits, as for lsb_insert_naive.
 */
int lsb_insert_naive_fts(const char *path, long long count, int rows_per_txn,
                         double *seconds, char *err, int errlen);

/*
 * On a database made by lsb_insert_naive, deletes the oldest rows in one
 * statement, as naive retention code would:
 *   BEGIN; DELETE FROM messages WHERE id <= through_id; COMMIT
 * (synchronous=NORMAL set first; the database is already in WAL mode).
 * *seconds receives the wall time from BEGIN through COMMIT (opening,
 * preparing and closing are not included), *deleted the rows deleted. Free
 * pages stay in the file: nothing is vacuumed or checkpointed beyond what
 * SQLite does by itself at commit.
 */
int lsb_delete_oldest_naive(const char *path, long long through_id,
                            double *seconds, long long *deleted, char *err,
                            int errlen);

/*
 * On a database made by lsb_insert_naive, runs `repeats` times
 *   SELECT id, created_at, level, label, text, metadata FROM messages
 *   WHERE label = ? AND level >= ? ORDER BY created_at DESC LIMIT ?
 * reading every row, and reports the median time per query in milliseconds
 * and the number of rows one query returned.
 */
int lsb_query_latest(const char *path, const char *label, int min_level,
                     int limit, int repeats, double *median_ms,
                     long long *rows_out, char *err, int errlen);

/*
 * On a database made by lsb_insert_naive, runs `repeats` times the naive
 * summary: the time range, then counts per level, label and time bucket
 *   SELECT min(created_at), max(created_at) FROM messages
 *   SELECT level, label, CAST((created_at - lo) / width AS INTEGER), count(*)
 *   FROM messages GROUP BY 1, 2, 3
 * and reports the median time in milliseconds and the rows counted.
 */
int lsb_query_summary(const char *path, int buckets, int repeats,
                      double *median_ms, long long *total_out, char *err,
                      int errlen);

/*
 * On a database made by lsb_insert_naive, runs `repeats` times
 *   SELECT count(*) FROM messages WHERE level >= ?
 * and reports the median time in milliseconds and the count.
 */
int lsb_query_count(const char *path, int min_level, int repeats,
                    double *median_ms, long long *count_out, char *err,
                    int errlen);

/*
 * Runs the statement `sql` `repeats` times on the database at path, with
 * `param` bound as text to its first parameter (when param is not NULL and
 * the statement has one), reading every column of every row; reports the
 * median time per run in milliseconds and the number of rows one run
 * returned. Any statement works, a write included (autocommit).
 */
int lsb_query_sql(const char *path, const char *sql, const char *param,
                  int repeats, double *median_ms, long long *rows_out,
                  char *err, int errlen);

/*
 * The first column of the first row of `sql` on the database at path, as an
 * integer (0 when it returns no row or NULL), e.g. a size from dbstat.
 */
int lsb_query_integer(const char *path, const char *sql, long long *value,
                      char *err, int errlen);

/*
 * Opens the database at path (read-write, as a store does) and reads its
 * schema, `repeats` times; reports the median milliseconds.
 */
int lsb_open_ms(const char *path, int repeats, double *median_ms, char *err,
                int errlen);

/*
 * On a database made by lsb_insert_naive, writes every message to a new file
 * out_path (fails if it exists), as naive export code would: one
 *   SELECT id, created_at, level, label, text, metadata, file, line
 *   FROM messages ORDER BY id
 * and per row one fprintf of a text line (json == 0: time with milliseconds,
 * level, label, text, the stored metadata JSON, file:line) or of a JSON object
 * (json != 0: strings escaped a character at a time, the stored metadata
 * copied as is), then fflush and fsync. *seconds receives the wall time from
 * preparing through fsync (opening and closing the database not included),
 * *bytes_out the file's size, *rows_out the rows written.
 */
int lsb_export_naive(const char *path, const char *out_path, int json,
                     double *seconds, long long *bytes_out,
                     long long *rows_out, char *err, int errlen);

/* The generator's splitmix64 step for row i (r in the specification). */
unsigned long long lsb_splitmix64(unsigned long long x);

/*
 * Writes row i's text into buf (snprintf semantics: truncated to cap - 1
 * bytes and always NUL-terminated when cap > 0).
 */
void lsb_row_text(unsigned long long i, char *buf, int cap);

/* Row i's label: a static string, never NULL. */
const char *lsb_label(unsigned long long i);

/* Row i's level, 0 (trace) ... 6 (critical). */
int lsb_row_level(unsigned long long i);

/*
 * Writes row i's metadata JSON into buf (snprintf semantics) and returns 1,
 * or returns 0 and writes an empty string when row i has no metadata (NULL).
 */
int lsb_row_metadata(unsigned long long i, char *buf, int cap);

/*
 * The plain-zlib baseline for compressing bodies: compresses `count` bodies,
 * stored back to back in data (body i has lengths[i] bytes), one at a time
 * with zlib's compress2 at `level` (-1 or 0...9): a fresh zlib stream per
 * body, as a direct call does, into one output buffer allocated before the
 * clock starts. *mb_per_s receives the input megabytes (10^6 bytes) per
 * second of wall time, *compressed_bytes the total output (each body a
 * complete zlib stream). Returns Z_OK (0), or a zlib error code with a
 * message in err (Z_STREAM_ERROR for invalid arguments, Z_MEM_ERROR when out
 * of memory).
 */
int lsb_zlib_compress_mb_per_s(const unsigned char *data,
                               const size_t *lengths, size_t count, int level,
                               double *mb_per_s,
                               unsigned long long *compressed_bytes,
                               char *err, int errlen);

#ifdef __cplusplus
}
#endif

#endif
