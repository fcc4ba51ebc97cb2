/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The governor interface: one table of operations per algorithm, tunables with valid ranges. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A governor's answer for "as fast as possible" (kernel DEVFREQ_MAX_FREQ). */
#define DF_FREQ_MAX UINT64_MAX

#define DF_GOVERNOR_TUNABLES_MAX 4

/* What a governor sees at one decision. Frequencies in Hz. */
struct df_governor_input {
        /* The load sample of the last interval; only meaningful when has_sample. */
        bool has_sample;
        uint64_t busy;
        uint64_t total;
        /* First decision on this sample (a poll); false when an event reuses it. */
        bool fresh;
        /* How long the sample lasted and the polling interval (the kernel's sampling_rate), in µs;
         * 0 when unknown (then dbs_update()'s long-idle rule never applies). */
        uint64_t duration_usec;
        uint64_t interval_usec;
        /* The frequency the sample was taken at: its busy time ran at it (an event that reuses the
         * sample must not read it against a frequency applied since). */
        uint64_t sample_current;

        uint64_t current; /* the frequency in force */
        uint64_t min;     /* effective range */
        uint64_t max;

        /* Usable points now (enabled, meeting the latency aggregate), ascending, n >= 1. */
        const uint64_t *points;
        size_t n_points;

        /* Every point of the device's table, ascending (passive: index mapping), and each one's
         * voltage in µV, 0 when unknown (energy_aware: energy per cycle). */
        const uint64_t *table;
        const uint32_t *table_microvolt;
        size_t n_table;

        /* Hz per unit of the kernel's arithmetic on the device's kind of node: 1000 on a cpufreq
         * policy, where ondemand's proportional target and conservative's step are whole kHz as
         * in the kernel; 1 on devfreq. 0 counts as 1. */
        uint64_t unit_hz;

        /* passive: the parent's frequency in force and its full table, ascending. */
        uint64_t parent_current;
        const uint64_t *parent_table;
        size_t n_parent_table;
};

/* The input's unit_hz, 0 read as 1. */
static inline uint64_t df_governor_unit_hz(const struct df_governor_input *in) {
        return in->unit_hz ? in->unit_hz : 1;
}

struct df_tunable {
        const char *name;
        uint32_t def;
        uint32_t min; /* static bounds; cross-tunable rules are checked by ops->validate */
        uint32_t max;
};

/* A load sample as dbs_update() sees it. */
struct df_dbs_sample {
        uint64_t busy;
        uint64_t total;
        uint64_t duration_usec; /* 0: unknown */
};

/* No long idle in a sample (the kernel's UINT_MAX idle_periods). */
#define DF_DBS_NO_IDLE_PERIODS UINT64_MAX

struct df_governor;

struct df_governor_ops {
        const char *name;
        bool polls; /* takes a load sample every polling interval */
        const struct df_tunable *tunables;
        size_t n_tunables;
        /* Cross-tunable rules (e.g. downdifferential <= upthreshold): 0 or -ERANGE. May be NULL. */
        int (*validate)(const uint32_t *values);
        /* (Re)start: forget history. `current` is the frequency in force. May be NULL. */
        void (*start)(struct df_governor *g, uint64_t current);
        /* Never fails: tunables were validated when set. DF_FREQ_MAX means the highest. */
        uint64_t (*get_target)(struct df_governor *g, const struct df_governor_input *in);
};

/* A (parent frequency, child frequency) pair of a passive map. */
struct df_passive_pair {
        uint64_t parent;
        uint64_t child;
};

struct df_governor {
        const struct df_governor_ops *ops;
        uint32_t tunables[DF_GOVERNOR_TUNABLES_MAX]; /* in ops->tunables order */

        union {
                struct {
                        uint64_t freq;
                        bool valid;
                } userspace;
                struct {
                        uint32_t prev_load;
                        uint32_t rate_mult; /* polls in the current sampling period */
                        uint32_t polls;     /* polls of it so far, their load in window */
                        struct df_dbs_sample window;
                        uint64_t last; /* the last decision, for re-evaluations */
                } ondemand;
                struct {
                        uint64_t requested;
                        uint32_t down_skip;
                        uint32_t prev_load;
                        uint64_t last;
                } conservative;
                struct {
                        uint64_t estimate;  /* demand, Hz (cycles per second) */
                        uint64_t last_need; /* the demand the last choice was made for */
                        uint32_t saturated; /* consecutive saturated samples, up to 3 */
                        bool valid;
                        /* Spikes coming back at a fixed period (a video's I-frames): */
                        uint32_t samples;    /* samples so far (wraps) */
                        uint32_t last_spike; /* the sample of the last spike */
                        uint32_t period;     /* samples between the last two spikes */
                        bool regular;        /* the last period repeated the one before */
                        bool in_spike;       /* the last sample was a spike */
                        bool sizing;         /* the last spike saturated: the next sample sizes it */
                        uint64_t spike_at;   /* the frequency a saturated spike ran at */
                        uint64_t spike_base; /* the need before it: its next sample's new work */
                        uint64_t spike_need; /* the demand of the last spike, Hz */
                        /* What the last sample asked for, for the events that reuse it: */
                        uint64_t need;         /* the demand to run, Hz */
                        uint64_t sample_freq;  /* the frequency it was taken at */
                        bool sample_saturated; /* it was: at least one voltage level above that */
                } energy_aware;
        } state;

        /* passive: optional explicit map, sorted by parent frequency (owned). */
        struct df_passive_pair *passive_map;
        size_t n_passive_map;
};

extern const struct df_governor_ops df_governor_performance;
extern const struct df_governor_ops df_governor_powersave;
extern const struct df_governor_ops df_governor_userspace;
extern const struct df_governor_ops df_governor_simple_ondemand;
extern const struct df_governor_ops df_governor_ondemand;
extern const struct df_governor_ops df_governor_conservative;
extern const struct df_governor_ops df_governor_energy_aware;
extern const struct df_governor_ops df_governor_passive;

/* Every governor, sorted by name. */
extern const struct df_governor_ops *const df_governors[];
extern const size_t df_governors_count;

/* NULL when unknown. */
const struct df_governor_ops *df_governor_find(const char *name);

/* Select `ops` with default tunables and fresh state (frees a previous passive map). */
void df_governor_init(struct df_governor *g, const struct df_governor_ops *ops);
void df_governor_done(struct df_governor *g);

/* Index of a tunable of ops, or -ENOENT. */
int df_governor_tunable_index(const struct df_governor_ops *ops, const char *name);

/*
 * Check a complete set of values (in ops->tunables order) against the static ranges and the
 * governor's cross rules: 0, or -ERANGE.
 */
int df_governor_validate(const struct df_governor_ops *ops, const uint32_t *values);

/* Every tunable, as the mask of df_governor_format_tunables(). */
#define DF_GOVERNOR_ALL_TUNABLES UINT32_MAX

/*
 * "name = value, ..." for the tunables of `ops` whose bit is set in `mask` (bit i: tunable i), in
 * ops->tunables order, for messages that name a set of values that does not fit together; cut
 * short at `size`. Returns `buf`.
 */
const char *df_governor_format_tunables(
        const struct df_governor_ops *ops, const uint32_t *values, uint32_t mask, char *buf, size_t size);

/* Set one tunable, checked together with the others in force: 0, -ENOENT, -ERANGE. */
int df_governor_set_tunable(struct df_governor *g, const char *name, uint32_t value);
/* Set all at once (configuration), checked as a whole: 0 or -ERANGE; nothing changes on error. */
int df_governor_set_tunables(struct df_governor *g, const uint32_t *values);
int df_governor_get_tunable(const struct df_governor *g, const char *name, uint32_t *ret);

/* passive: install an explicit map (copied, sorted by parent). -EINVAL on duplicate parents. */
int df_governor_set_passive_map(struct df_governor *g, const struct df_passive_pair *pairs, size_t n);

void df_governor_start(struct df_governor *g, uint64_t current);
uint64_t df_governor_get_target(struct df_governor *g, const struct df_governor_input *in);

/* userspace: the value of SetFrequency (stored raw; clamping happens in the device). */
void df_governor_userspace_set(struct df_governor *g, uint64_t freq);

/*
 * kernel: governor_simpleondemand.c devfreq_simple_ondemand_func(), step by step, with
 * devfreqd's two differences (devfreqd.conf(5), GOVERNORS): tunables are taken literally, and
 * the proportional step uses a 128-bit product and the full divisor. -EINVAL when upthreshold
 * is 0 or above 100 or below downdifferential.
 */
int df_simple_ondemand_target(
        uint64_t busy, uint64_t total, uint64_t current, uint32_t upthreshold, uint32_t downdifferential,
        uint64_t *ret);

/* Busy percentage of a sample, 0-100 (busy above total counts as 100); -EINVAL if total is 0. */
int df_load_percent(uint64_t busy, uint64_t total);

/*
 * kernel: cpufreq_governor.c dbs_update() for one sample. period_usec is the sampling period
 * (the polling interval times ondemand's rate_mult; 0: unknown). A zero total (no time
 * elapsed) reuses *prev_load; when the sample's idle time (its idle share times its duration)
 * exceeds twice the period and *prev_load is not zero, *prev_load is used once and cleared;
 * else the busy percentage, kept in *prev_load. *ret_idle_periods (may be NULL): the idle time
 * in whole periods when it exceeds two, else DF_DBS_NO_IDLE_PERIODS (conservative).
 */
uint32_t df_dbs_update(
        uint32_t *prev_load, const struct df_dbs_sample *s, uint64_t period_usec, uint64_t *ret_idle_periods);

/* Add b to a (ondemand's stretched period), saturating each field. */
void df_dbs_sample_add(struct df_dbs_sample *a, const struct df_dbs_sample *b);

/*
 * kernel: __resolve_freq() over the usable points (ascending, n >= 1). CPUFREQ_RELATION_H: the
 * highest point at or below freq, else the lowest; CPUFREQ_RELATION_L: the lowest point at or
 * above freq, else the highest.
 */
uint64_t df_dbs_point_at_or_below(const uint64_t *points, size_t n, uint64_t freq);
uint64_t df_dbs_point_at_or_above(const uint64_t *points, size_t n, uint64_t freq);

/*
 * kernel: cpufreq_set_policy() since v5.16 ("cpufreq: Make policy min/max hard requirements"):
 * policy->max is the effective maximum resolved down to a usable point (RELATION_H), policy->min
 * the effective minimum resolved up (RELATION_L) and, since v6.15, not above policy->max. These,
 * not the range's bounds between points, are the limits ondemand and conservative compare with
 * and step by, and the frequency in force is clamped into when they change. ret_min may be NULL.
 */
void df_dbs_policy_limits(
        const uint64_t *points, size_t n, uint64_t min, uint64_t max, uint64_t *ret_min, uint64_t *ret_max);
