#ifndef LOGSTORE_CBENCHNETWORK_H
#define LOGSTORE_CBENCHNETWORK_H

/*
 * The naive C pipeline for network tasks: the baseline of network.tasks_per_s,
 * network.cpu_us_per_task and network.binary_tasks_per_s.
 *
 * The benchmark writes a workload file that describes exactly what its
 * storeRequest calls get: the request line, the status, and four parts (the
 * request body, the response body and the two heads as header JSON), each a
 * template of bytes whose slots a seed fills. network_baseline.c specifies
 * the format and the filling; the Swift side cross-checks lsb_net_part
 * against its own bodies before it measures anything.
 *
 * Functions returning int return 0 on success or an SQLite result code
 * (SQLITE_MISUSE for bad arguments or a malformed workload, SQLITE_CANTOPEN
 * when a file cannot be read or created) and then write a NUL-terminated
 * message into err (at most errlen bytes).
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed workload file (opaque). */
typedef struct lsb_net_workload lsb_net_workload;

/* The parts of a task, as lsb_net_part numbers them. */
enum {
    LSB_NET_REQUEST_BODY = 0,
    LSB_NET_RESPONSE_BODY = 1,
    LSB_NET_REQUEST_HEAD = 2,
    LSB_NET_RESPONSE_HEAD = 3
};

/* Reads and checks the workload file at path; *out is NULL on failure. */
int lsb_net_load(const char *path, lsb_net_workload **out, char *err, int errlen);

/* Frees a workload from lsb_net_load (NULL is allowed). */
void lsb_net_free(lsb_net_workload *workload);

/*
 * Writes part `part` of task `task` into buf and returns its length, or -1
 * when part is out of range or cap is too small.
 */
long lsb_net_part(const lsb_net_workload *workload, unsigned long long task,
                  int part, unsigned char *buf, size_t cap);

/*
 * Writes the SHA-1 of data[0 ..< length] (the pipeline's portable one) as 40
 * lowercase hexadecimal digits and a NUL into hex.
 */
void lsb_sha1_hex(const unsigned char *data, size_t length, char hex[41]);

/*
 * The naive pipeline: creates a fresh database at db_path (fails if it
 * exists), WAL + synchronous=NORMAL, and stores tasks 0 ..< count of the
 * workload on this one thread, tasks_per_txn per transaction; per task, for
 * each body the portable SHA-1, a lookup of the key in the indexed blobs
 * table and, for a new key, compress2 at `level` (kept when smaller) and the
 * blob row; then the task row and its technical message row. *seconds gets
 * the wall time and *cpu_seconds the process's user + system CPU
 * (getrusage(RUSAGE_SELF)) of the stores and commits, *blobs the blob rows
 * inserted.
 */
int lsb_network_naive(const char *workload_path, const char *db_path,
                      long long count, int tasks_per_txn, int level,
                      double *seconds, double *cpu_seconds, long long *blobs,
                      char *err, int errlen);

#ifdef __cplusplus
}
#endif

#endif
