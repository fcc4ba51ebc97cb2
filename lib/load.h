/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Load sources: busy and total time over the last interval from /proc/stat, a counters file or a
 * percentage file. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "load-spec.h"
#include "sysfs.h"

struct df_load_source {
        enum df_load_kind kind;
        int fd; /* kept open, read with pread at 0 */
        unsigned *cpus;
        size_t n_cpus;
        uint64_t *prev_busy; /* per CPU for proc-stat, [0] for counters */
        uint64_t *prev_total;
        bool primed;
        uint64_t prev_usec; /* when the previous reading was taken */
        char *buf;          /* /proc/stat grows with the CPU count */
        size_t buf_size;
};

/* Open a source; proc-stat reads /proc/stat of the root for `cpus`. */
int df_load_source_open(
        const struct df_root *root, enum df_load_kind kind, const char *path, const unsigned *cpus,
        size_t n_cpus, struct df_load_source **ret);
struct df_load_source *df_load_source_free(struct df_load_source *s);

/*
 * Take one reading at now_usec (CLOCK_MONOTONIC). 1: a complete sample since the previous reading
 * in *ret_busy and *ret_total (percent: busy = the percentage, total = 100), and the time since
 * that reading in *ret_duration_usec. 0: no sample this time (the first reading of
 * cumulative counters, counters that went backwards, a zero total, a percentage above 100):
 * dropped, the caller keeps its frequency. Negative errno on a read or parse error.
 */
int df_load_source_sample(
        struct df_load_source *s, uint64_t now_usec, uint64_t *ret_busy, uint64_t *ret_total,
        uint64_t *ret_duration_usec);
