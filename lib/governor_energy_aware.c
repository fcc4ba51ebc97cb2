/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* energy_aware: devfreqd's own governor. It predicts the demand from the history of samples and
 * picks the point that does the predicted work in time for the least energy per cycle (V^2). */

#include <errno.h>

#include "governor.h"
#include "macro.h"

enum {
        TUNABLE_TARGET_LOAD,
        TUNABLE_RISE,
        TUNABLE_DECAY,
        TUNABLE_SATURATED_SAMPLES,
};

/* The most saturated_samples may be: after three in a row the governor is always at the top. */
#define SATURATED_MAX 3u

/* The estimate closes `percent` of its gap to the sample's demand. */
static uint64_t approach(uint64_t estimate, uint64_t demand, uint32_t rise, uint32_t decay) {
        if (demand >= estimate)
                /* Rounded up: a rise of any size is never lost. */
                return estimate + (uint64_t) (((unsigned __int128) (demand - estimate) * rise + 99) / 100);
        /* Rounded down: the estimate falls a little slower than the percentage says. */
        return estimate - (uint64_t) ((unsigned __int128) (estimate - demand) * decay / 100);
}

/* The demand of one sample, Hz: the cycles it did per second (a saturated one, all it could). */
static uint64_t sample_demand(const struct df_governor_input *in) {
        if (in->busy >= in->total)
                return in->current;
        return (uint64_t) ((unsigned __int128) in->busy * in->current / in->total);
}

/*
 * Among the usable points in the range that run `need` Hz, the one with the least energy per
 * cycle (V^2, so the least voltage); equal voltages go to the highest such point, whose headroom
 * costs nothing. Without every voltage known, V is taken proportional to f: the lowest such
 * point. None fast enough: the highest point in range.
 */
static uint64_t least_energy_point(const struct df_governor_input *in, uint64_t need) {
        uint64_t best = 0, top = 0;
        uint32_t best_uv = 0;
        size_t j = 0;

        for (size_t i = 0; i < in->n_points; i++) {
                uint64_t f = in->points[i];
                uint32_t uv = 0;

                if (f < in->min || f > in->max)
                        continue;
                top = f;
                if (f < need)
                        continue;
                while (in->table_microvolt && j < in->n_table && in->table[j] < f)
                        j++;
                if (in->table_microvolt && j < in->n_table && in->table[j] == f)
                        uv = in->table_microvolt[j];
                if (uv == 0)
                        return best ? best : f;
                if (best == 0 || uv <= best_uv) {
                        best = f;
                        best_uv = uv;
                }
        }
        if (best)
                return best;
        return top ? top : DF_FREQ_MAX;
}

static uint64_t energy_aware_get_target(struct df_governor *g, const struct df_governor_input *in) {
        uint32_t target = g->tunables[TUNABLE_TARGET_LOAD];
        bool saturated;
        uint64_t demand;
        unsigned __int128 need;

        /* A zero-length sample holds nothing to learn from. */
        if (!in->has_sample || in->total == 0 || in->n_points == 0)
                return in->current;

        /* Saturated (busy equal to total): the work left over is unknown, and so is the demand. */
        saturated = in->busy >= in->total;
        g->state.energy_aware.saturated = saturated ? MIN(g->state.energy_aware.saturated + 1, SATURATED_MAX) :
                                                      0;
        demand = sample_demand(in);
        if (!g->state.energy_aware.valid)
                g->state.energy_aware.estimate = demand;
        else
                g->state.energy_aware.estimate = approach(
                        g->state.energy_aware.estimate, demand, g->tunables[TUNABLE_RISE],
                        g->tunables[TUNABLE_DECAY]);
        g->state.energy_aware.valid = true;

        if (g->state.energy_aware.saturated >= g->tunables[TUNABLE_SATURATED_SAMPLES])
                return DF_FREQ_MAX;

        /* The point must run the predicted demand at no more than target_load % busy. */
        need = ((unsigned __int128) g->state.energy_aware.estimate * 100 + target - 1) / target;
        return least_energy_point(in, need > UINT64_MAX ? UINT64_MAX : (uint64_t) need);
}

/* A demand that falls faster than it rises would trade misses for energy. */
static int energy_aware_validate(const uint32_t *values) {
        return values[TUNABLE_DECAY] <= values[TUNABLE_RISE] ? 0 : -ERANGE;
}

static const struct df_tunable energy_aware_tunables[] = {
        [TUNABLE_TARGET_LOAD] = { .name = "target_load", .def = 85, .min = 10, .max = 100 },
        [TUNABLE_RISE] = { .name = "rise", .def = 100, .min = 1, .max = 100 },
        /* At most rise: energy_aware_validate(). */
        [TUNABLE_DECAY] = { .name = "decay", .def = 25, .min = 1, .max = 100 },
        [TUNABLE_SATURATED_SAMPLES] = { .name = "saturated_samples", .def = 1, .min = 1, .max = SATURATED_MAX },
};

const struct df_governor_ops df_governor_energy_aware = {
        .name = "energy_aware",
        .polls = true,
        .tunables = energy_aware_tunables,
        .n_tunables = ELEMENTSOF(energy_aware_tunables),
        .validate = energy_aware_validate,
        .get_target = energy_aware_get_target,
};
