/*
 * The parsed workload of the naive network pipeline, shared by
 * network_workload.c (which reads and fills it) and network_pipeline.c.
 * Internal to CBenchBaseline.
 */
#ifndef LOGSTORE_LSB_NET_WORKLOAD_H
#define LOGSTORE_LSB_NET_WORKLOAD_H

#include "CBenchNetwork.h"

#include <stddef.h>

#define LSB_NET_PARTS 4
#define LSB_NET_MAX_PART (1 << 20)
#define LSB_NET_MAX_SLOTS 4096

struct lsb_net_slot {
    size_t offset;
    char kind;
    size_t width;
};

struct lsb_net_part_template {
    unsigned char *bytes;
    size_t length;
    struct lsb_net_slot *slots;
    size_t slot_count;
    /* XORed into the task's seed: two parts of one length differ. */
    unsigned long long salt;
};

struct lsb_net_workload {
    unsigned long long pool;
    unsigned long long seed_base;
    char method[16];
    char url[1024];
    char host[256];
    int status;
    struct lsb_net_part_template parts[LSB_NET_PARTS];
};

/* The largest part of the workload, in bytes. */
size_t lsb_net_largest_part(const lsb_net_workload *workload);

#endif
