/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The offline optimum of devfreq-replay --work: the least energy with no miss, knowing the future.
 * With first-in first-out work the cumulative amount done fixes the whole state, so a search
 * window by window that keeps only the Pareto front of (done, energy) is exact. Its cost is the
 * front's size times the points, summed over the windows: bounded (replay-work.h), since work due
 * far ahead lets the front grow with every window. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay-work.h"

/* A deadline of one job: by `offset_ns` into window `window`, `sum` cycles must be done in all. */
struct due {
        uint64_t window;
        uint64_t offset_ns;
        work_u128 sum;
};

struct state {
        work_u128 done;
        long double energy;
};

static int compare_due(const void *a, const void *b) {
        const struct due *x = a, *y = b;

        return x->window < y->window ? -1 : x->window > y->window;
}

/* More done first; among equal amounts, less energy first. */
static int compare_state(const void *a, const void *b) {
        const struct state *x = a, *y = b;

        if (x->done != y->done)
                return x->done > y->done ? -1 : 1;
        return x->energy < y->energy ? -1 : x->energy > y->energy;
}

/* Every job's deadline, sorted by the window it falls in; *ret_total is all the work. */
static int build_dues(
        const struct work_model *m, const struct work_trace *t, struct due **ret, size_t *ret_n,
        work_u128 *ret_total) {
        struct due *d = calloc(t->n ? t->n : 1, sizeof(struct due));
        work_u128 sum = 0;
        size_t n = 0;

        if (!d)
                return -ENOMEM;
        for (size_t k = 0; k < t->n; k++) {
                uint64_t at;

                if (t->cycles[k] == 0)
                        continue;
                sum += t->cycles[k];
                /* Window k starts at k x interval; the deadline falls in window ceil(at / I) - 1. */
                at = t->deadline_ns[k];
                d[n].window = k + (at - 1) / m->interval_ns;
                d[n].offset_ns = at - (d[n].window - k) * m->interval_ns;
                d[n].sum = sum;
                n++;
        }
        qsort(d, n, sizeof(struct due), compare_due);
        *ret = d;
        *ret_n = n;
        *ret_total = sum;
        return 0;
}

/* Whether `done` before the window, at `freq`, meets every deadline of the window. */
static bool meets(const struct due *d, size_t n, work_u128 done, uint64_t freq) {
        for (size_t i = 0; i < n; i++) {
                work_u128 by = (work_u128) freq * d[i].offset_ns / 1000000000u;
                if (done + by < d[i].sum)
                        return false;
        }
        return true;
}

/* Keep the Pareto front of `s`: sorted by done, descending, each with less energy than all before. */
static size_t prune(struct state *s, size_t n) {
        size_t k = 0;

        qsort(s, n, sizeof(struct state), compare_state);
        for (size_t i = 0; i < n; i++)
                if (k == 0 || s[i].energy < s[k - 1].energy)
                        s[k++] = s[i];
        return k;
}

/* One window k from `front` into a new front over the allowed points; the deadlines of k are dues.
 * *budget is what is left of the states that may be examined. */
static int
step(const struct work_model *m, const size_t *allowed, size_t n_allowed, const struct due *dues,
     size_t n_dues, work_u128 arrived, uint64_t *budget, struct state **front, size_t *n_front) {
        struct state *next;
        size_t n = 0;

        if (*n_front > WORK_OPTIMUM_MAX_WINDOW_STATES / n_allowed || *n_front * n_allowed > *budget)
                return -E2BIG;
        *budget -= *n_front * n_allowed;
        next = malloc((*n_front * n_allowed + 1) * sizeof(struct state));
        if (!next)
                return -ENOMEM;
        for (size_t i = 0; i < *n_front; i++)
                for (size_t p = 0; p < n_allowed; p++) {
                        uint64_t f = m->freqs[allowed[p]];
                        work_u128 d = (*front)[i].done, nd = MIN(d + work_capacity(m, f), arrived);

                        if (!meets(dues, n_dues, d, f))
                                continue;
                        next[n++] = (struct state){
                                .done = nd,
                                .energy = (*front)[i].energy +
                                        work_window_energy(m, allowed[p], (uint64_t) (nd - d)),
                        };
                }
        free(*front);
        *front = next;
        *n_front = prune(next, n);
        return 0;
}

int work_optimum(
        const struct work_model *m, const size_t *allowed, size_t n_allowed, const struct work_trace *t,
        uint64_t max_states, long double *ret) {
        _cleanup_free_ struct due *dues = NULL;
        _cleanup_free_ struct state *front = NULL;
        size_t n_dues, n_front = 1, di = 0;
        work_u128 total, arrived = 0;
        uint64_t budget = max_states ?: WORK_OPTIMUM_MAX_STATES;
        long double best = 0;
        bool found = false;
        int r;

        if (n_allowed == 0)
                return -EINVAL;
        if (t->n == 0) {
                *ret = 0;
                return 1;
        }
        r = build_dues(m, t, &dues, &n_dues, &total);
        if (r < 0)
                return r;
        front = calloc(1, sizeof(struct state));
        if (!front)
                return -ENOMEM;

        for (uint64_t k = 0; n_front > 0; k++) {
                size_t de = di;

                if (k < t->n)
                        arrived += t->cycles[k];
                while (de < n_dues && dues[de].window == k)
                        de++;
                r = step(m, allowed, n_allowed, dues + di, de - di, arrived, &budget, &front, &n_front);
                if (r < 0)
                        return r;
                di = de;
                /* From the trace's last window on, a state with all work done ends: it runs no
                 * further window. The front is sorted by work done, the most first. */
                if (k + 1 >= t->n && n_front > 0 && front[0].done == total) {
                        if (!found || front[0].energy < best)
                                best = front[0].energy;
                        found = true;
                        memmove(front, front + 1, (n_front - 1) * sizeof(struct state));
                        n_front--;
                }
        }
        if (!found)
                return 0;
        *ret = best;
        return 1;
}
