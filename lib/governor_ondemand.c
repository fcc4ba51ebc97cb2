/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ondemand: cpufreq's ondemand governor on a device's points (no powersave_bias). */

#include "governor.h"
#include "macro.h"

enum {
        TUNABLE_UP_THRESHOLD,
        TUNABLE_SAMPLING_DOWN_FACTOR,
};

/* The usable point closest to `freq`; a tie goes to the lower one (CPUFREQ_RELATION_C). */
static uint64_t nearest_point(const uint64_t *points, size_t n, uint64_t freq) {
        size_t i = 0;

        while (i < n && points[i] < freq)
                i++;
        if (i == 0)
                return points[0];
        if (i == n)
                return points[n - 1];
        return freq - points[i - 1] <= points[i] - freq ? points[i - 1] : points[i];
}

/*
 * The point DF_FREQ_MAX ends at: the highest usable point within the range (the kernel's
 * policy->max), else the lowest usable point, where the device's snap falls back to.
 */
static uint64_t top_point(const struct df_governor_input *in) {
        for (size_t i = in->n_points; i > 0; i--)
                if (in->points[i - 1] <= in->max)
                        return in->points[i - 1];
        return in->points[0];
}

/*
 * kernel: od_update() with dbs_update()'s load. The kernel stretches the next sampling
 * period by sampling_down_factor once at the maximum; devfreqd's timer is shared, so it
 * counts decisions instead: at the top point only every sampling_down_factor-th one acts.
 */
static uint64_t ondemand_get_target(struct df_governor *g, const struct df_governor_input *in) {
        uint32_t up = g->tunables[TUNABLE_UP_THRESHOLD];
        uint32_t sdf = g->tunables[TUNABLE_SAMPLING_DOWN_FACTOR];
        uint64_t lo, hi, next;
        uint32_t load;

        if (!in->has_sample || in->n_points == 0)
                return in->current;

        load = df_governor_dbs_load(&g->state.ondemand.prev_load, in);

        if (in->current == top_point(in)) {
                if (++g->state.ondemand.skip < sdf)
                        return in->current;
        }
        g->state.ondemand.skip = 0;

        if (load > up)
                return DF_FREQ_MAX;

        lo = in->points[0];
        hi = in->points[in->n_points - 1];
        next = lo + (uint64_t) ((unsigned __int128) load * (hi - lo) / 100);
        return nearest_point(in->points, in->n_points, next);
}

static const struct df_tunable ondemand_tunables[] = {
        [TUNABLE_UP_THRESHOLD] = { .name = "up_threshold", .def = 95, .min = 11, .max = 100 },
        [TUNABLE_SAMPLING_DOWN_FACTOR] = { .name = "sampling_down_factor", .def = 1, .min = 1, .max = 100000 },
};

const struct df_governor_ops df_governor_ondemand = {
        .name = "ondemand",
        .polls = true,
        .tunables = ondemand_tunables,
        .n_tunables = ELEMENTSOF(ondemand_tunables),
        .get_target = ondemand_get_target,
};
