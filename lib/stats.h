/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Time in state, transition table and their text in the kernel's trans_stat layout. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest table kept: the transition table grows with the square of it. */
#define DF_STATS_MAX_STATES 1024

struct df_stats {
        size_t n;
        uint64_t *freqs;   /* the table, ascending; columns never change while a device lives */
        uint64_t *time_us; /* time in state */
        uint64_t *trans;   /* n * n, row = from, column = to */
        uint64_t total;
        uint64_t last_update; /* µs, caller's clock */
        int cur;              /* index of the frequency in force, -1 when none matches */
        double *weight;       /* per state f×V² over the top point's, NULL without voltages */
        double energy;        /* Σ seconds × weight, each interval with the voltages then in force */
};

int df_stats_init(struct df_stats *s, const uint64_t *freqs, size_t n, uint64_t now_usec);
void df_stats_done(struct df_stats *s);

/*
 * kernel: devfreq_update_status(): charge the time since the last update to the frequency in
 * force, count a transition when `freq` differs from it, make `freq` the one in force. A
 * frequency outside the table leaves none in force (time is not charged until a known one is
 * set again): -EINVAL, as the kernel.
 */
int df_stats_update(struct df_stats *s, uint64_t freq, uint64_t now_usec);

/*
 * The voltages of the table's points (n entries, 0 = unknown): from now on energy is charged
 * with them. With an unknown one, none is charged. -ENOMEM leaves the previous ones.
 */
int df_stats_set_voltages(struct df_stats *s, const uint32_t *microvolt);

/* Dynamic energy as of now (the running interval included), in seconds at the top point. */
double df_stats_energy(const struct df_stats *s, uint64_t now_usec);

/*
 * The energy of a time in state counted elsewhere (clamp mode: the kernel's, time_ms[k] at
 * freqs[k]), charged at each reading with the voltages in force then: the energy so far and the
 * time in state it was charged up to (zeroed: nothing yet).
 */
struct df_stats_outside {
        double energy;
        uint64_t *freqs, *time_ms;
        size_t n;
        uint64_t total; /* transitions at the last reading */
        bool from_next; /* no last reading: the next one only says where the count goes on from */
};

/* A reading (`total`: its transitions): the time since the last one is charged with the voltages of
 * `s` and becomes the new last one. A frequency `s` does not hold counts none; a time or a total
 * below the last one's means the counters were reset, and then every time of the reading counts
 * whole. -ENOMEM changes nothing. */
int df_stats_outside_update(
        struct df_stats_outside *o, const struct df_stats *s, const uint64_t *freqs, const uint64_t *time_ms,
        size_t n, uint64_t total);
/* Goes on from `energy`, with this reading charged already (a count taken over). */
int df_stats_outside_start(
        struct df_stats_outside *o, double energy, const uint64_t *freqs, const uint64_t *time_ms, size_t n,
        uint64_t total);
/* Goes on from `energy` when the count taken over could not be read: the next reading is charged
 * nothing, only the time after it (less is charged than was spent, not the whole count again). */
void df_stats_outside_resume(struct df_stats_outside *o, double energy);
/* Frees and zeroes: the counters were reset, nothing is owed. */
void df_stats_outside_done(struct df_stats_outside *o);

/*
 * `to` (another table) goes on from `from` as of now: the time in state of the frequencies both
 * tables hold, the transitions between them, the total of transitions and the energy (both
 * whole); the frequency in force is `from`'s if `to` holds it. What `to` counted is dropped.
 */
void df_stats_carry(struct df_stats *to, const struct df_stats *from, uint64_t now_usec);

/* Zero everything; the frequency in force stays and its time restarts at now. */
void df_stats_reset(struct df_stats *s, uint64_t now_usec);

/* Time in state in ms as of now (the running interval included), n entries, caller frees. */
int df_stats_time_ms(const struct df_stats *s, uint64_t now_usec, uint64_t **ret);

/*
 * kernel: trans_stat_show() text (fixed marker form): header, one row per frequency with a
 * '*' on the one in force, times in ms, "Total transition : N". `time_ms` and `trans` are n and
 * n*n entries; `current` marks the row (none when no entry equals it).
 */
int df_stats_format_table(
        const uint64_t *freqs, const uint64_t *time_ms, const uint64_t *trans, size_t n, uint64_t total,
        uint64_t current, char **ret);

/* df_stats_format_table() of s as of now. */
int df_stats_format(const struct df_stats *s, uint64_t now_usec, char **ret);
