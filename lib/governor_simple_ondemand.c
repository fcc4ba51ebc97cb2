/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* simple_ondemand: the kernel's devfreq load governor (governor_simpleondemand.c), integer-exact. */

#include <assert.h>
#include <errno.h>

#include "governor.h"
#include "macro.h"

enum {
        TUNABLE_UPTHRESHOLD,
        TUNABLE_DOWNDIFFERENTIAL,
};

/* Above 2^24 the kernel shifts both counters once by 7 so that `x * 100` cannot overflow. */
#define SHIFT_LIMIT (UINT64_C(1) << 24)
#define SHIFT_BITS 7

/* kernel: devfreq_simple_ondemand_func() */
int df_simple_ondemand_target(
        uint64_t busy, uint64_t total, uint64_t current, uint32_t upthreshold, uint32_t downdifferential,
        uint64_t *ret) {
        unsigned __int128 b;

        assert(ret);

        /* Taken literally: the kernel would read a 0 as "use the default". */
        if (upthreshold == 0 || upthreshold > 100 || upthreshold < downdifferential)
                return -EINVAL;

        if (total == 0) {
                *ret = DF_FREQ_MAX;
                return 0;
        }

        /* One shift for both, even when only one of them is large. */
        if (busy >= SHIFT_LIMIT || total >= SHIFT_LIMIT) {
                busy >>= SHIFT_BITS;
                total >>= SHIFT_BITS;
        }

        /* Both are below 2^57 now: times 100 stays below 2^64. */
        if (busy * 100 > total * upthreshold) {
                *ret = DF_FREQ_MAX;
                return 0;
        }

        if (current == 0) {
                *ret = DF_FREQ_MAX;
                return 0;
        }

        if (busy * 100 > total * (upthreshold - downdifferential)) {
                *ret = current;
                return 0;
        }

        /*
         * Here busy * 100 <= total * (up - dd) with busy or total non-zero, so total >= 1. The kernel
         * wraps busy * current at 2^64 and divides by (u32) total; devfreqd keeps the full product
         * and divisor, in the kernel's order (divide, then scale), so it agrees wherever the
         * kernel neither wraps nor truncates.
         */
        b = (unsigned __int128) busy * current / total;
        b = b * 100 / (upthreshold - downdifferential / 2);
        /* b <= current here (up - dd <= up - dd / 2); saturate anyway rather than truncate. */
        *ret = b > UINT64_MAX ? UINT64_MAX : (uint64_t) b;
        return 0;
}

static int simple_ondemand_validate(const uint32_t *values) {
        return values[TUNABLE_DOWNDIFFERENTIAL] <= values[TUNABLE_UPTHRESHOLD] ? 0 : -ERANGE;
}

static uint64_t simple_ondemand_get_target(struct df_governor *g, const struct df_governor_input *in) {
        uint64_t freq;

        if (!in->has_sample)
                return in->current;
        /* The tunables were validated when set, so this cannot fail; keep the frequency if it did.
         * The busy time ran at the sample's frequency (the kernel's stat.current_frequency); an event
         * reusing the sample gives the same answer as the poll did. */
        if (df_simple_ondemand_target(
                    in->busy, in->total, in->sample_current, g->tunables[TUNABLE_UPTHRESHOLD],
                    g->tunables[TUNABLE_DOWNDIFFERENTIAL], &freq) < 0)
                return in->current;
        return freq;
}

static const struct df_tunable simple_ondemand_tunables[] = {
        [TUNABLE_UPTHRESHOLD] = { .name = "upthreshold", .def = 90, .min = 1, .max = 100 },
        /* At most upthreshold: simple_ondemand_validate(). */
        [TUNABLE_DOWNDIFFERENTIAL] = { .name = "downdifferential", .def = 5, .min = 0, .max = 100 },
};

const struct df_governor_ops df_governor_simple_ondemand = {
        .name = "simple_ondemand",
        .polls = true,
        .tunables = simple_ondemand_tunables,
        .n_tunables = ELEMENTSOF(simple_ondemand_tunables),
        .validate = simple_ondemand_validate,
        .get_target = simple_ondemand_get_target,
};
