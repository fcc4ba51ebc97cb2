/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* energy_aware: devfreqd's own governor. It estimates the demand from the history of samples (at
 * once when a sample outgrew its point) and picks the point that runs it for the least energy per
 * cycle (V^2); saturated samples go up, and spikes that come back at a fixed period are met ahead
 * of time. devfreqd.conf(5), GOVERNORS. */

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
/* A sample whose demand passes 150 % of the one the last choice was made for is a spike. */
#define SPIKE_PERCENT 150u
/* A period counts from three samples up: closer spikes are one load, not a rhythm. */
#define PERIOD_MIN 3u

#define S(g) ((g)->state.energy_aware)

static uint64_t saturate(unsigned __int128 v) {
        return v > UINT64_MAX ? UINT64_MAX : (uint64_t) v;
}

/* a * b / c rounded down (c > 0), saturated: in 64 bits when the product fits, as it always
 * does for real frequencies and times (the 128-bit division is a library call, and the tick's
 * cost counts). */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c) {
        if (b == 0 || a <= UINT64_MAX / b)
                return a * b / c;
        return saturate((unsigned __int128) a * b / c);
}

/* a * b / c rounded up (c > 0), saturated. */
static uint64_t mul_div_up(uint64_t a, uint64_t b, uint64_t c) {
        if (b == 0 || a <= (UINT64_MAX - (c - 1)) / b)
                return (a * b + c - 1) / c;
        return saturate(((unsigned __int128) a * b + c - 1) / c);
}

/* The estimate closes `percent` of its gap to the sample's demand. */
static uint64_t approach(uint64_t estimate, uint64_t demand, uint32_t rise, uint32_t decay) {
        if (demand >= estimate)
                /* Rounded up: a rise of any size is never lost (and never passes the demand). */
                return estimate + mul_div_up(demand - estimate, rise, 100);
        /* Rounded down: the estimate falls a little slower than the percentage says. */
        return estimate - mul_div(estimate - demand, decay, 100);
}

/* The demand of one sample, Hz: the cycles it did per second (a saturated one, all it could). */
static uint64_t sample_demand(const struct df_governor_input *in) {
        if (in->busy >= in->total)
                return in->sample_current;
        return mul_div(in->busy, in->sample_current, in->total);
}

/* Whether point f lies in the range the governor may choose from. */
static bool in_range(const struct df_governor_input *in, uint64_t f) {
        return f >= in->min && f <= in->max;
}

/* Whether every point of the table has a voltage: else V is taken proportional to f. */
static bool voltages_known(const struct df_governor_input *in) {
        if (!in->table_microvolt || in->n_table == 0)
                return false;
        for (size_t j = 0; j < in->n_table; j++)
                if (in->table_microvolt[j] == 0)
                        return false;
        return true;
}

/* The voltage of point f; *j walks the table alongside ascending points. 0 if not in the table. */
static uint32_t voltage_of(const struct df_governor_input *in, uint64_t f, size_t *j) {
        while (*j < in->n_table && in->table[*j] < f)
                (*j)++;
        return *j < in->n_table && in->table[*j] == f ? in->table_microvolt[*j] : 0;
}

/*
 * Among the usable points in the range that run `need` Hz, the one with the least energy per
 * cycle (V^2, so the least voltage); equal voltages go to the highest such point, whose headroom
 * costs nothing. Without every voltage known, the lowest such point. None fast enough: the
 * highest point in range.
 */
static uint64_t least_energy_point(const struct df_governor_input *in, uint64_t need, bool volts) {
        uint64_t best = 0, top = 0;
        uint32_t best_uv = 0;
        size_t j = 0;

        for (size_t i = 0; i < in->n_points; i++) {
                uint64_t f = in->points[i];
                uint32_t uv;

                if (!in_range(in, f))
                        continue;
                top = f;
                if (f < need)
                        continue;
                if (!volts)
                        return f;
                uv = voltage_of(in, f, &j);
                if (best == 0 || uv <= best_uv) {
                        best = f;
                        best_uv = uv;
                }
        }
        if (best)
                return best;
        return top ? top : DF_FREQ_MAX;
}

/* The highest usable point in the range; 0 if none. */
static uint64_t highest_point(const struct df_governor_input *in) {
        uint64_t top = 0;

        for (size_t i = 0; i < in->n_points; i++)
                if (in_range(in, in->points[i]))
                        top = in->points[i];
        return top;
}

/* One voltage level above `current`: the highest point in range of the first voltage above its
 * (without voltages, the next point up); the highest point in range when there is none. */
static uint64_t level_up(const struct df_governor_input *in, uint64_t current, bool volts) {
        uint64_t found = 0, top = 0;
        uint32_t from = 0, level = 0;
        size_t j = 0;

        for (size_t i = 0; i < in->n_points; i++) {
                uint64_t f = in->points[i];
                uint32_t uv = volts ? voltage_of(in, f, &j) : 0;

                if (!in_range(in, f))
                        continue;
                top = f;
                if (f <= current) {
                        from = uv;
                        continue;
                }
                if (!volts)
                        return f;
                if (found == 0 && uv <= from)
                        continue; /* the same voltage as the current point, or less */
                if (found != 0 && uv != level)
                        break;
                found = f;
                level = uv;
        }
        if (found)
                return found;
        return top ? top : DF_FREQ_MAX;
}

/*
 * Spikes at a fixed period. A spike is a saturated sample or one whose demand passes SPIKE_PERCENT
 * of the last need; when two spikes in a row came the same number of samples apart (give or take
 * one), the next is expected as many samples after the last. The demand of a saturated spike is
 * unknown: the frequency it ran at plus the work it left over, or the top if the next sample
 * saturates too. The next sample shows that work above the need the spike came after (its new
 * work is the usual kind). Returns the demand to be ready for in the next window, or 0.
 */
static uint64_t
expected_spike(struct df_governor *g, bool spike, bool saturated, uint64_t demand, uint64_t current) {
        if (S(g).sizing) {
                S(g).sizing = false;
                S(g).spike_need = saturated ?
                        UINT64_MAX :
                        saturate(
                                (unsigned __int128) S(g).spike_at +
                                (demand > S(g).spike_base ? demand - S(g).spike_base : 0));
        }
        if (spike && !S(g).in_spike) {
                uint32_t interval = S(g).samples - S(g).last_spike;

                S(g).regular = S(g).period >= PERIOD_MIN && interval + 1 >= S(g).period &&
                        interval <= S(g).period + 1;
                S(g).period = interval;
                S(g).last_spike = S(g).samples;
                S(g).spike_need = saturated ? current : demand;
                S(g).spike_at = current;
                S(g).spike_base = S(g).last_need;
                S(g).sizing = saturated;
        }
        S(g).in_spike = spike;
        if (S(g).regular && S(g).samples + 1 == S(g).last_spike + S(g).period)
                return S(g).spike_need;
        return 0;
}

/* Learn from a new sample: the estimate, saturation and spikes, and the demand to run now. */
static void learn(struct df_governor *g, const struct df_governor_input *in) {
        uint32_t target = g->tunables[TUNABLE_TARGET_LOAD];
        uint64_t demand, expected;
        bool saturated, spike;

        S(g).samples++;
        /* Saturated (busy equal to total): the work left over is unknown, and so is the demand. */
        saturated = in->busy >= in->total;
        S(g).saturated = saturated ? MIN(S(g).saturated + 1, SATURATED_MAX) : 0;
        demand = sample_demand(in);
        if (!S(g).valid) {
                S(g).estimate = S(g).last_need = demand;
                S(g).valid = true;
        }
        spike = saturated ||
                (unsigned __int128) demand * 100 > (unsigned __int128) S(g).last_need * SPIKE_PERCENT;
        expected = expected_spike(g, spike, saturated, demand, in->sample_current);
        S(g).estimate = approach(S(g).estimate, demand, g->tunables[TUNABLE_RISE], g->tunables[TUNABLE_DECAY]);
        /* Busier than target_load below the top: the point chosen for the sample is too slow for
         * it, and the estimate takes its demand at once instead of closing part of the gap. At the
         * top there is nothing faster, and the estimate keeps its pace. */
        if ((unsigned __int128) in->busy * 100 > (unsigned __int128) in->total * target &&
            in->sample_current < highest_point(in))
                S(g).estimate = MAX(S(g).estimate, demand);
        /* At the top for saturation, no choice is made for the estimate. */
        if (S(g).saturated < g->tunables[TUNABLE_SATURATED_SAMPLES])
                S(g).last_need = S(g).estimate;
        S(g).need = MAX(S(g).estimate, expected);
        S(g).sample_freq = in->sample_current;
        S(g).sample_saturated = saturated;
}

/* The point for what the last sample asked, in the range and among the points usable now. */
static uint64_t choose(const struct df_governor *g, const struct df_governor_input *in) {
        bool volts = voltages_known(in);
        uint64_t choice;

        if (S(g).saturated >= g->tunables[TUNABLE_SATURATED_SAMPLES])
                return DF_FREQ_MAX;
        /* The point must run the demand at no more than target_load % busy. */
        choice = least_energy_point(in, mul_div_up(S(g).need, 100, g->tunables[TUNABLE_TARGET_LOAD]), volts);
        /* A saturated sample before the top: at least one voltage level up. */
        if (S(g).sample_saturated)
                choice = MAX(choice, level_up(in, S(g).sample_freq, volts));
        return choice;
}

static uint64_t energy_aware_get_target(struct df_governor *g, const struct df_governor_input *in) {
        /* A zero-length sample holds nothing to learn from. */
        if (!in->has_sample || in->total == 0 || in->n_points == 0)
                return in->current;
        /* An event reuses the sample: the choice is made again for the range and points of now, and
         * nothing is learnt twice from it. */
        if (in->fresh)
                learn(g, in);
        else if (!S(g).valid)
                return in->current;
        return choose(g, in);
}

/* A demand that falls faster than it rises would trade misses for energy. */
static int energy_aware_validate(const uint32_t *values) {
        return values[TUNABLE_DECAY] <= values[TUNABLE_RISE] ? 0 : -ERANGE;
}

static const struct df_tunable energy_aware_tunables[] = {
        [TUNABLE_TARGET_LOAD] = { .name = "target_load", .def = 90, .min = 10, .max = 100 },
        [TUNABLE_RISE] = { .name = "rise", .def = 70, .min = 1, .max = 100 },
        /* At most rise: energy_aware_validate(). */
        [TUNABLE_DECAY] = { .name = "decay", .def = 70, .min = 1, .max = 100 },
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
