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

static void ondemand_start(struct df_governor *g, uint64_t current) {
        g->state.ondemand.rate_mult = 1;
        g->state.ondemand.last = current;
}

/*
 * kernel: cpufreq_ondemand.c od_update() at the end of a sampling period, with dbs_update()'s
 * load over the whole period: above up_threshold the highest, and only a jump there from below
 * stretches the next period to sampling_down_factor polls (rate_mult); the proportional branch
 * resets it to one poll.
 */
static uint64_t ondemand_decide(struct df_governor *g, const struct df_governor_input *in, uint32_t load) {
        uint64_t lo, hi, next, unit;

        if (load > g->tunables[TUNABLE_UP_THRESHOLD]) {
                uint64_t max;

                /* policy->max, the point DF_FREQ_MAX ends at after the device's clamp and snap */
                df_dbs_policy_limits(in->points, in->n_points, in->min, in->max, NULL, &max);
                if (in->current < max)
                        g->state.ondemand.rate_mult = g->tunables[TUNABLE_SAMPLING_DOWN_FACTOR];
                return DF_FREQ_MAX;
        }
        g->state.ondemand.rate_mult = 1;
        /* In the kernel's unit (kHz on cpufreq), truncated there as its unsigned int is. */
        unit = df_governor_unit_hz(in);
        lo = in->points[0] / unit;
        hi = in->points[in->n_points - 1] / unit;
        next = lo + (uint64_t) ((unsigned __int128) load * (hi - lo) / 100);
        return nearest_point(in->points, in->n_points, next * unit);
}

/*
 * kernel: od_dbs_update(): the next sample is rate_mult sampling periods away. devfreqd's timer
 * is shared, so a stretched period is rate_mult polls whose samples add up; the polls inside it
 * decide nothing. A re-evaluation (an event reusing the sample) repeats the last decision.
 */
static uint64_t ondemand_get_target(struct df_governor *g, const struct df_governor_input *in) {
        const struct df_dbs_sample sample = { in->busy, in->total, in->duration_usec };
        uint64_t period;
        uint32_t load, mult;

        if (!in->has_sample || in->n_points == 0)
                return in->current;
        if (!in->fresh)
                return g->state.ondemand.last;

        /* 0 only in a governor never started: one poll. */
        mult = MAX(g->state.ondemand.rate_mult, UINT32_C(1));
        df_dbs_sample_add(&g->state.ondemand.window, &sample);
        if (++g->state.ondemand.polls < mult)
                return in->current;

        period = in->interval_usec > UINT64_MAX / mult ? UINT64_MAX : in->interval_usec * mult;
        load = df_dbs_update(&g->state.ondemand.prev_load, &g->state.ondemand.window, period, NULL);
        g->state.ondemand.window = (struct df_dbs_sample){};
        g->state.ondemand.polls = 0;
        g->state.ondemand.last = ondemand_decide(g, in, load);
        return g->state.ondemand.last;
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
        .start = ondemand_start,
        .get_target = ondemand_get_target,
};
