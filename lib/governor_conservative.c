/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* conservative: cpufreq's conservative governor, stepping by freq_step % of the highest point. */

#include <errno.h>

#include "governor.h"
#include "macro.h"

enum {
        TUNABLE_UP_THRESHOLD,
        TUNABLE_DOWN_THRESHOLD,
        TUNABLE_FREQ_STEP,
        TUNABLE_SAMPLING_DOWN_FACTOR,
};

/* kernel: DEF_FREQUENCY_STEP, 5 kHz, for a step that rounds to 0 */
#define DEFAULT_STEP_HZ UINT64_C(5000)

/* The highest point <= freq, else the lowest (CPUFREQ_RELATION_H). */
static uint64_t point_at_or_below(const uint64_t *points, size_t n, uint64_t freq) {
        for (size_t i = n; i > 0; i--)
                if (points[i - 1] <= freq)
                        return points[i - 1];
        return points[0];
}

/* The lowest point >= freq, else the highest (CPUFREQ_RELATION_L). */
static uint64_t point_at_or_above(const uint64_t *points, size_t n, uint64_t freq) {
        for (size_t i = 0; i < n; i++)
                if (points[i] >= freq)
                        return points[i];
        return points[n - 1];
}

static void conservative_start(struct df_governor *g, uint64_t current) {
        g->state.conservative.requested = current;
}

/*
 * kernel: cs_dbs_update(), in Hz, with the effective range as policy->min/max. Not reproduced:
 * idle_periods (no per-CPU idle data here) and the early returns when requested already sits
 * at the ceiling or floor; devfreqd answers that end's point again, which differs only when the
 * frequency in force was changed behind the governor's back.
 */
static uint64_t conservative_get_target(struct df_governor *g, const struct df_governor_input *in) {
        uint32_t up = g->tunables[TUNABLE_UP_THRESHOLD];
        uint32_t down = g->tunables[TUNABLE_DOWN_THRESHOLD];
        uint32_t freq_step = g->tunables[TUNABLE_FREQ_STEP];
        uint32_t sdf = g->tunables[TUNABLE_SAMPLING_DOWN_FACTOR];
        uint64_t requested, step, hi;
        uint32_t load;

        if (!in->has_sample || in->n_points == 0)
                return in->current;

        load = df_governor_dbs_load(&g->state.conservative.prev_load, in);

        /* The kernel returns early here: freq_step 0 freezes the frequency. */
        if (freq_step == 0)
                return in->current;

        /* The range changed under the governor: start again from the frequency in force. */
        requested = g->state.conservative.requested;
        if (requested < in->min || requested > in->max)
                requested = in->current;
        g->state.conservative.requested = requested;

        hi = in->points[in->n_points - 1];
        step = (uint64_t) ((unsigned __int128) freq_step * hi / 100);
        if (step == 0)
                step = DEFAULT_STEP_HZ;

        if (load > up) {
                g->state.conservative.down_skip = 0;
                if (requested < in->max && in->max - requested > step)
                        requested += step;
                else
                        requested = in->max;
                /* Stored unrounded, so several small steps add up to the next point. */
                g->state.conservative.requested = requested;
                return point_at_or_below(in->points, in->n_points, requested);
        }

        if (++g->state.conservative.down_skip < sdf)
                return in->current;
        g->state.conservative.down_skip = 0;

        if (load < down) {
                if (requested > in->min && requested - in->min > step)
                        requested -= step;
                else
                        requested = in->min;
                g->state.conservative.requested = requested;
                return point_at_or_above(in->points, in->n_points, requested);
        }

        return in->current;
}

static int conservative_validate(const uint32_t *values) {
        return values[TUNABLE_DOWN_THRESHOLD] < values[TUNABLE_UP_THRESHOLD] ? 0 : -ERANGE;
}

/* The static bounds leave room for the cross rule down_threshold < up_threshold. */
static const struct df_tunable conservative_tunables[] = {
        [TUNABLE_UP_THRESHOLD] = { .name = "up_threshold", .def = 80, .min = 2, .max = 100 },
        [TUNABLE_DOWN_THRESHOLD] = { .name = "down_threshold", .def = 20, .min = 1, .max = 99 },
        [TUNABLE_FREQ_STEP] = { .name = "freq_step", .def = 5, .min = 0, .max = 100 },
        [TUNABLE_SAMPLING_DOWN_FACTOR] = { .name = "sampling_down_factor", .def = 1, .min = 1, .max = 10 },
};

const struct df_governor_ops df_governor_conservative = {
        .name = "conservative",
        .polls = true,
        .tunables = conservative_tunables,
        .n_tunables = ELEMENTSOF(conservative_tunables),
        .validate = conservative_validate,
        .start = conservative_start,
        .get_target = conservative_get_target,
};
