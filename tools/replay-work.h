/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreq-replay --work: a governor in a closed loop over a trace of arriving work (devfreq-replay(1),
 * CLOSED LOOP): the window arithmetic, the energy model and the offline optimum. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"

typedef unsigned __int128 work_u128;

/* The energy model of one device: its points, the window length and the static power. */
struct work_model {
        uint64_t interval_ns;
        long double static_power; /* fraction of the top point's dynamic power */
        const uint64_t *freqs;    /* every point of the table, ascending */
        long double *volts;       /* volts, or f / f_top without voltages */
        size_t n;
};

/* Cycles a window holds at `freq`: floor(freq x interval), at most UINT64_MAX. */
uint64_t work_capacity(const struct work_model *m, uint64_t freq);

/* Energy of a window at point i that does `done` cycles: V^2 per cycle plus static power. */
long double work_window_energy(const struct work_model *m, size_t i, uint64_t done);

/* The model's points from an OPP table: all with voltages or none. -EINVAL for a mix. */
int work_model_init(
        struct work_model *m, const struct df_opp_table *t, uint64_t interval_usec, long double static_power);
void work_model_done(struct work_model *m);

/* Work that arrived and is not done yet, first in first out. */
struct work_job {
        uint64_t left;
        uint64_t arrival_ns;
        uint64_t deadline_ns; /* absolute */
};

struct work_sim {
        const struct work_model *model;
        struct work_job *jobs;
        size_t head, n, allocated;
        work_u128 backlog;
        uint64_t window; /* index of the next window */

        long double energy;
        work_u128 done;
        uint64_t n_jobs, misses;
        uint64_t *delays; /* completion delay of every finished job, ns */
        size_t n_delays, allocated_delays;
};

/* What one window did. */
struct work_window {
        uint64_t done;
        uint64_t missed; /* jobs finished in this window after their deadline */
        uint64_t busy_ns, total_ns;
};

void work_sim_init(struct work_sim *s, const struct work_model *m);
void work_sim_done(struct work_sim *s);

/* Work arriving at the start of the next window, due `deadline_ns` after that start. */
int work_sim_add(struct work_sim *s, uint64_t cycles, uint64_t deadline_ns);

/* Run the next window at point i of the model. */
int work_sim_window(struct work_sim *s, size_t i, struct work_window *ret);

/* Nearest-rank percentile (1-100) of the completion delays, ns; 0 without any. Sorts them. */
uint64_t work_sim_delay_percentile(struct work_sim *s, unsigned percent);

/* A whole trace, kept for the optimum. */
struct work_trace {
        uint64_t *cycles;
        uint64_t *deadline_ns; /* relative to the start of the window it arrives in */
        size_t n, allocated;
};

int work_trace_add(struct work_trace *t, uint64_t cycles, uint64_t deadline_ns);
void work_trace_done(struct work_trace *t);

/*
 * The exact search's bounds (devfreq-replay(1), LIMITS): at most WORK_OPTIMUM_MAX_STATES states
 * examined in all (a state of the front at one point for one window: the time), and at most
 * WORK_OPTIMUM_MAX_WINDOW_STATES of them for one window (the memory: 32 bytes each, 32 MiB). The
 * front stays small when deadlines fall within a window or two, as in the traces of the tree; it
 * grows with work whose deadline lies far ahead.
 */
#define WORK_OPTIMUM_MAX_STATES UINT64_C(4000000)
#define WORK_OPTIMUM_MAX_WINDOW_STATES ((size_t) 1 << 20)

/*
 * The least energy any sequence of the points `allowed` (indices into the model, ascending) can
 * spend on the trace with no miss, running windows after the trace until all work is done. The
 * first window runs at point `first` (an index into the model), as it does under any governor,
 * which decides only after a sample; SIZE_MAX lets it take any allowed point too.
 * 1 and *ret set, 0 when no sequence avoids every miss, -E2BIG when the search would go beyond
 * `max_states` states examined (0: WORK_OPTIMUM_MAX_STATES) or the bound of one window, or
 * another negative errno.
 */
int work_optimum(
        const struct work_model *m, const size_t *allowed, size_t n_allowed, size_t first,
        const struct work_trace *t, uint64_t max_states, long double *ret);

/* After the trace, empty windows run until all work is done, at most this many (an error beyond). */
#define WORK_DRAIN_MAX_WINDOWS UINT64_C(1000000)

/* The closed loop: each line's work through the device's governor. Like replay_stream(). */
struct work_options {
        long double static_power;
        bool summary;
        bool optimum;                /* the summary computes the offline optimum */
        uint64_t optimum_max_states; /* 0: WORK_OPTIMUM_MAX_STATES */
};
int work_stream(struct replay *rp, const struct work_options *o, FILE *in, FILE *out);
