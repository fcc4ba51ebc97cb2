/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The arithmetic the sampling governors share: the kernel's dbs_update() for one sample, and the
 * policy's limits resolved to points. The governor table (governor.c) lists the governors; the
 * governors call down into this file. */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>

#include "governor.h"
#include "macro.h"
#include "opp.h"

/* kernel: dbs_update(), load = 100 * busy / total, floored */
int df_load_percent(uint64_t busy, uint64_t total) {
        if (total == 0)
                return -EINVAL;
        if (busy >= total)
                return 100;
        return (int) ((unsigned __int128) busy * 100 / total);
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void df_dbs_sample_add(struct df_dbs_sample *a, const struct df_dbs_sample *b) {
        assert(a);
        assert(b);

        a->busy = add_sat(a->busy, b->busy);
        a->total = add_sat(a->total, b->total);
        a->duration_usec = add_sat(a->duration_usec, b->duration_usec);
}

/* The idle share of the sample times its duration, floored; busy above total is no idle. */
static uint64_t idle_usec(const struct df_dbs_sample *s) {
        if (s->total == 0 || s->busy >= s->total)
                return 0;
        return (uint64_t) ((unsigned __int128) (s->total - s->busy) * s->duration_usec / s->total);
}

uint32_t df_dbs_update(
        uint32_t *prev_load, const struct df_dbs_sample *s, uint64_t period_usec, uint64_t *ret_idle_periods) {
        assert(prev_load);
        assert(s);

        uint64_t idle = idle_usec(s);
        bool long_idle = period_usec > 0 && idle > (unsigned __int128) period_usec * 2;
        uint32_t load;

        if (ret_idle_periods)
                *ret_idle_periods = long_idle ? idle / period_usec : DF_DBS_NO_IDLE_PERIODS;

        if (s->total == 0)
                return *prev_load;
        if (long_idle && *prev_load != 0) {
                /* A burst after a long idle: the load before it, once. */
                load = *prev_load;
                *prev_load = 0;
                return load;
        }
        load = (uint32_t) df_load_percent(s->busy, s->total);
        *prev_load = load;
        return load;
}

uint64_t df_dbs_point_at_or_below(const uint64_t *points, size_t n, uint64_t freq) {
        assert(points && n > 0);

        int i = df_freqs_floor(points, n, freq);
        return points[i >= 0 ? (size_t) i : 0];
}

uint64_t df_dbs_point_at_or_above(const uint64_t *points, size_t n, uint64_t freq) {
        assert(points && n > 0);

        int i = df_freqs_ceil(points, n, freq);
        return points[i >= 0 ? (size_t) i : n - 1];
}

/* The maximum first, and the minimum not above it: the order of the kernel's v6.15 rework. */
void df_dbs_policy_limits(
        const uint64_t *points, size_t n, uint64_t min, uint64_t max, uint64_t *ret_min, uint64_t *ret_max) {
        assert(ret_max);

        uint64_t resolved_max = df_dbs_point_at_or_below(points, n, max);

        if (ret_min)
                *ret_min = MIN(df_dbs_point_at_or_above(points, n, min), resolved_max);
        *ret_max = resolved_max;
}
