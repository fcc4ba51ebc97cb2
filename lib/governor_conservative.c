/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* conservative: cpufreq's conservative governor, stepping by freq_step % of the policy's maximum. */

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

static void conservative_start(struct df_governor *g, uint64_t current) {
        g->state.conservative.requested = current;
        g->state.conservative.last = current;
}

/* kernel: get_freq_step(), freq_step % of policy->max, else 5 kHz; whole units of the kernel's
 * arithmetic (kHz on cpufreq, `unit` Hz each). */
static uint64_t freq_step_hz(uint32_t freq_step, uint64_t max, uint64_t unit) {
        uint64_t step = (uint64_t) ((unsigned __int128) freq_step * (max / unit) / 100) * unit;
        return step > 0 ? step : DEFAULT_STEP_HZ;
}

/* requested lowered by one step per idle period, not below the minimum. */
static uint64_t idle_decrease(uint64_t min, uint64_t requested, uint64_t periods, uint64_t step) {
        unsigned __int128 steps = (unsigned __int128) periods * step;

        return requested > min + steps ? requested - (uint64_t) steps : min;
}

/*
 * kernel: cpufreq_conservative.c cs_dbs_update(), in Hz, with policy->min/max the effective range
 * resolved to usable points (df_dbs_policy_limits()) and the relations applied to the usable
 * points after clamping into those limits (__cpufreq_driver_target()). Where the kernel returns
 * without a new target, the frequency in force stays; the lowered request of idle periods only
 * counts when a target follows.
 */
static uint64_t conservative_decide(struct df_governor *g, const struct df_governor_input *in) {
        const struct df_dbs_sample sample = { in->busy, in->total, in->duration_usec };
        uint32_t freq_step = g->tunables[TUNABLE_FREQ_STEP];
        uint64_t min, max, requested, step, idle_periods;
        uint32_t load;

        load = df_dbs_update(&g->state.conservative.prev_load, &sample, in->interval_usec, &idle_periods);
        if (freq_step == 0)
                return in->current;

        /* The limits changed under the governor: start again from the frequency in force. */
        df_dbs_policy_limits(in->points, in->n_points, in->min, in->max, &min, &max);
        requested = g->state.conservative.requested;
        if (requested < min || requested > max) {
                requested = in->current;
                g->state.conservative.requested = requested;
        }

        step = freq_step_hz(freq_step, max, df_governor_unit_hz(in));
        if (idle_periods != DF_DBS_NO_IDLE_PERIODS)
                requested = idle_decrease(min, requested, idle_periods, step);

        if (load > g->tunables[TUNABLE_UP_THRESHOLD]) {
                g->state.conservative.down_skip = 0;
                if (requested == max)
                        return in->current; /* already at full speed */
                requested = requested < max && max - requested > step ? requested + step : max;
                /* Stored unrounded, so several small steps add up to the next point. */
                g->state.conservative.requested = requested;
                return df_dbs_point_at_or_below(in->points, in->n_points, MIN(MAX(requested, min), max));
        }

        if (++g->state.conservative.down_skip < g->tunables[TUNABLE_SAMPLING_DOWN_FACTOR])
                return in->current;
        g->state.conservative.down_skip = 0;

        if (load < g->tunables[TUNABLE_DOWN_THRESHOLD]) {
                if (requested == min)
                        return in->current; /* cannot go lower */
                /* As the kernel: below the minimum when requested is close to it; the clamp and
                 * the next sample's range check catch that. */
                requested = requested > step ? requested - step : min;
                g->state.conservative.requested = requested;
                return df_dbs_point_at_or_above(in->points, in->n_points, MIN(MAX(requested, min), max));
        }
        return in->current;
}

/* A re-evaluation (an event reusing the sample) repeats the last decision. */
static uint64_t conservative_get_target(struct df_governor *g, const struct df_governor_input *in) {
        if (!in->has_sample || in->n_points == 0)
                return in->current;
        if (in->fresh)
                g->state.conservative.last = conservative_decide(g, in);
        return g->state.conservative.last;
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
