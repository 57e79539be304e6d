/*
 * The workload of the naive C pipeline for network tasks (see CBenchNetwork.h):
 * reading the file the benchmark writes and filling a task's parts.
 *
 * WORKLOAD FILE (written by the Swift benchmark, NetworkWorkload.swift): text
 * lines, except each part's bytes, which follow their line raw:
 *
 *   lsb-network 1
 *   seeds POOL BASE        task i's seed: i even -> (i / 2) % POOL, odd -> BASE + i
 *   method METHOD
 *   url URL
 *   host HOST
 *   status STATUS
 *   part P LENGTH SLOTS SALT   four times, P = 0 ... 3 in order (the request
 *   <LENGTH bytes>\n           body, the response body, the request head and
 *   OFFSET KIND WIDTH          the response head); then LENGTH raw bytes, a
 *                              newline, and SLOTS lines "OFFSET KIND WIDTH"
 *                              (KIND one letter, in increasing OFFSET)
 *
 * FILLING (the same as BodyTemplate.make(seed:) in the benchmark, called with
 * the task's seed XOR the part's SALT as `seed`): the part's bytes are
 * copied, then the slots are filled in order from one stream,
 *   state = splitmix64(seed * 0x2545F4914F6CDD1D ^ LENGTH)   (64-bit wrap)
 *   next() = splitmix64(state += 0x9E3779B97F4A7C15)
 * where splitmix64 is the row generator's (baseline.c). Slot kinds:
 *   d  WIDTH decimal digits: r = next(); first '1' + r % 9, r /= 9; then per
 *      position p = 1 ... WIDTH-1: if p % 18 == 0, r = next(); '0' + r % 10, r /= 10
 *   h  WIDTH hex digits: r = next(); per position p: if p > 0 and p % 16 == 0,
 *      r = next(); "0123456789abcdef"[r & 15], r >>= 4
 *   t  20 bytes "2025-MM-DDTHH:MM:SSZ": r = next(); field k (month, day, hour,
 *      minute, second) = FIRST + (r >> 8k) % COUNT with (1,12), (1,28), (0,24),
 *      (0,60), (0,60), as two digits followed by '-', 'T', ':', ':', 'Z'
 *   r  WIDTH random bytes: per 8 bytes one next(), little-endian (the last
 *      word cut short when WIDTH is not a multiple of 8)
 *   i  16 hex digits of the task's request id: v = splitmix64(i ^ 0xF00D),
 *      lowest nibble first (uses no stream value)
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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static void lsb_net_err(char *err, int errlen, const char *fmt, ...) {
    if (err == NULL || errlen <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
}

/* ----------------------------------------------------------------- workload */

void lsb_net_free(lsb_net_workload *workload) {
    if (workload == NULL) return;
    for (int p = 0; p < LSB_NET_PARTS; p++) {
        free(workload->parts[p].bytes);
        free(workload->parts[p].slots);
    }
    free(workload);
}

/* Reads one part (its "part" line already matched as number p). */
static int lsb_net_read_part(FILE *file, struct lsb_net_part_template *part,
                             int p, char *err, int errlen) {
    int number = -1;
    size_t length = 0, slots = 0;
    if (fscanf(file, "part %d %zu %zu %llu", &number, &length, &slots, &part->salt) != 4 ||
        number != p || length == 0 || length > LSB_NET_MAX_PART ||
        slots > LSB_NET_MAX_SLOTS || fgetc(file) != '\n') {
        lsb_net_err(err, errlen, "workload: bad line for part %d", p);
        return SQLITE_MISUSE;
    }
    part->bytes = malloc(length);
    part->slots = malloc(sizeof(struct lsb_net_slot) * (slots > 0 ? slots : 1));
    if (part->bytes == NULL || part->slots == NULL) {
        lsb_net_err(err, errlen, "out of memory");
        return SQLITE_NOMEM;
    }
    part->length = length;
    part->slot_count = slots;
    if (fread(part->bytes, 1, length, file) != length || fgetc(file) != '\n') {
        lsb_net_err(err, errlen, "workload: part %d is shorter than %zu bytes", p, length);
        return SQLITE_MISUSE;
    }
    size_t end = 0;
    for (size_t s = 0; s < slots; s++) {
        struct lsb_net_slot *slot = &part->slots[s];
        if (fscanf(file, "%zu %c %zu", &slot->offset, &slot->kind, &slot->width) != 3 ||
            fgetc(file) != '\n' || slot->offset < end || slot->width == 0 ||
            slot->width > length || slot->offset > length - slot->width ||
            strchr("dhtri", slot->kind) == NULL ||
            (slot->kind == 't' && slot->width != 20) ||
            (slot->kind == 'i' && slot->width != 16)) {
            lsb_net_err(err, errlen, "workload: bad slot %zu of part %d", s, p);
            return SQLITE_MISUSE;
        }
        end = slot->offset + slot->width;
    }
    return SQLITE_OK;
}

/* Reads "KEY VALUE\n" into value (at most cap - 1 bytes, the rest of the line). */
static int lsb_net_read_field(FILE *file, const char *key, char *value, size_t cap) {
    char line[1200];
    if (fgets(line, sizeof line, file) == NULL) return 0;
    size_t key_length = strlen(key);
    size_t length = strlen(line);
    if (length == 0 || line[length - 1] != '\n') return 0;
    line[--length] = '\0';
    if (strncmp(line, key, key_length) != 0 || line[key_length] != ' ') return 0;
    if (length - key_length - 1 >= cap) return 0;
    memcpy(value, line + key_length + 1, length - key_length);
    return 1;
}

int lsb_net_load(const char *path, lsb_net_workload **out, char *err, int errlen) {
    if (out == NULL) return SQLITE_MISUSE;
    *out = NULL;
    if (path == NULL) {
        lsb_net_err(err, errlen, "workload path is NULL");
        return SQLITE_MISUSE;
    }
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        lsb_net_err(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return SQLITE_CANTOPEN;
    }
    lsb_net_workload *workload = calloc(1, sizeof *workload);
    int rc = SQLITE_MISUSE;
    char number[64];
    char status[16];
    if (workload == NULL) {
        lsb_net_err(err, errlen, "out of memory");
        rc = SQLITE_NOMEM;
        goto done;
    }
    if (!lsb_net_read_field(file, "lsb-network", number, sizeof number) ||
        strcmp(number, "1") != 0) {
        lsb_net_err(err, errlen, "workload: not an lsb-network 1 file");
        goto done;
    }
    if (!lsb_net_read_field(file, "seeds", number, sizeof number) ||
        sscanf(number, "%llu %llu", &workload->pool, &workload->seed_base) != 2 ||
        workload->pool == 0) {
        lsb_net_err(err, errlen, "workload: bad seeds line");
        goto done;
    }
    if (!lsb_net_read_field(file, "method", workload->method, sizeof workload->method) ||
        !lsb_net_read_field(file, "url", workload->url, sizeof workload->url) ||
        !lsb_net_read_field(file, "host", workload->host, sizeof workload->host) ||
        !lsb_net_read_field(file, "status", status, sizeof status) ||
        sscanf(status, "%d", &workload->status) != 1) {
        lsb_net_err(err, errlen, "workload: bad request line fields");
        goto done;
    }
    for (int p = 0; p < LSB_NET_PARTS; p++) {
        if ((rc = lsb_net_read_part(file, &workload->parts[p], p, err, errlen))) goto done;
    }
    rc = SQLITE_OK;
done:
    fclose(file);
    if (rc == SQLITE_OK) {
        *out = workload;
    } else {
        lsb_net_free(workload);
    }
    return rc;
}

/* ------------------------------------------------------------------ filling */

static const char lsb_net_hex[] = "0123456789abcdef";

static const struct {
    int first, count;
    char separator;
} lsb_net_time_fields[5] = {{1, 12, '-'}, {1, 28, 'T'}, {0, 24, ':'}, {0, 60, ':'}, {0, 60, 'Z'}};

static unsigned long long lsb_net_seed(const lsb_net_workload *w, unsigned long long task) {
    return task % 2 == 0 ? (task / 2) % w->pool : w->seed_base + task;
}

static void lsb_net_fill(const struct lsb_net_part_template *part, unsigned long long seed,
                         unsigned long long task, unsigned char *out) {
    uint64_t state = lsb_splitmix64(seed * UINT64_C(0x2545F4914F6CDD1D) ^ (uint64_t)part->length);
#define LSB_NEXT() (state += UINT64_C(0x9E3779B97F4A7C15), (uint64_t)lsb_splitmix64(state))
    memcpy(out, part->bytes, part->length);
    for (size_t s = 0; s < part->slot_count; s++) {
        const struct lsb_net_slot *slot = &part->slots[s];
        unsigned char *at = out + slot->offset;
        uint64_t r;
        switch (slot->kind) {
        case 'd':
            r = LSB_NEXT();
            at[0] = (unsigned char)('1' + r % 9);
            r /= 9;
            for (size_t p = 1; p < slot->width; p++) {
                if (p % 18 == 0) r = LSB_NEXT();
                at[p] = (unsigned char)('0' + r % 10);
                r /= 10;
            }
            break;
        case 'h':
            r = LSB_NEXT();
            for (size_t p = 0; p < slot->width; p++) {
                if (p > 0 && p % 16 == 0) r = LSB_NEXT();
                at[p] = (unsigned char)lsb_net_hex[r & 15];
                r >>= 4;
            }
            break;
        case 't':
            r = LSB_NEXT();
            memcpy(at, "2025-", 5);
            at += 5;
            for (int k = 0; k < 5; k++) {
                int value = lsb_net_time_fields[k].first +
                            (int)((r >> (8 * k)) % (uint64_t)lsb_net_time_fields[k].count);
                at[0] = (unsigned char)('0' + value / 10);
                at[1] = (unsigned char)('0' + value % 10);
                at[2] = (unsigned char)lsb_net_time_fields[k].separator;
                at += 3;
            }
            break;
        case 'r':
            for (size_t p = 0; p < slot->width; p += 8) {
                r = LSB_NEXT();
                for (size_t b = 0; b < 8 && p + b < slot->width; b++) at[p + b] = (unsigned char)(r >> (8 * b));
            }
            break;
        default: /* 'i' */
            r = lsb_splitmix64(task ^ 0xF00D);
            for (size_t p = 0; p < 16; p++) {
                at[p] = (unsigned char)lsb_net_hex[r & 15];
                r >>= 4;
            }
            break;
        }
    }
#undef LSB_NEXT
}

long lsb_net_part(const lsb_net_workload *workload, unsigned long long task, int part,
                  unsigned char *buf, size_t cap) {
    if (workload == NULL || buf == NULL || part < 0 || part >= LSB_NET_PARTS) return -1;
    const struct lsb_net_part_template *template = &workload->parts[part];
    if (cap < template->length) return -1;
    lsb_net_fill(template, lsb_net_seed(workload, task) ^ template->salt, task, buf);
    return (long)template->length;
}

void lsb_sha1_hex(const unsigned char *data, size_t length, char hex[41]) {
    unsigned char digest[20];
    lsb_sha1(data, length, digest);
    for (int i = 0; i < 20; i++) {
        hex[2 * i] = lsb_net_hex[digest[i] >> 4];
        hex[2 * i + 1] = lsb_net_hex[digest[i] & 15];
    }
    hex[40] = '\0';
}

size_t lsb_net_largest_part(const lsb_net_workload *workload) {
    size_t largest = 0;
    for (int p = 0; p < LSB_NET_PARTS; p++) {
        if (workload->parts[p].length > largest) largest = workload->parts[p].length;
    }
    return largest;
}
