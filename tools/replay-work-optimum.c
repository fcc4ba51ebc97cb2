/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The offline optimum of devfreq-replay --work: the least energy with no miss, knowing the future.
 * With first-in first-out work the cumulative amount done fixes the whole state, so a search
 * window by window that keeps only the states no other one beats is exact. Its cost is the front's
 * size times the points, summed over the windows: bounded (replay-work.h), since work due far
 * ahead lets the front grow with every window. */

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

/* The states that running one point from the front leads to, next[at..end), done descending. */
struct run {
        size_t at, end;
};

/* The run whose next state has the most done (among equal amounts, the least energy); n if none. */
static size_t pick(const struct state *next, const struct run *runs, size_t n) {
        size_t best = n;

        for (size_t p = 0; p < n; p++) {
                const struct state *a, *b;

                if (runs[p].at == runs[p].end)
                        continue;
                a = &next[runs[p].at];
                b = best < n ? &next[runs[best].at] : NULL;
                if (!b || a->done > b->done || (a->done == b->done && a->energy < b->energy))
                        best = p;
        }
        return best;
}

/*
 * Merge the runs into `out`, dropping the states another one beats whatever the future. A state
 * that has done d2 > d1 cycles can follow any schedule of the one at d1 and stay ahead of it window
 * by window, so it meets every deadline that one meets, does no more cycles in any window and ends
 * no later: it spends at least (d2 - d1) x vmin2 less from there on, vmin2 the least V^2 of the
 * points. So (d1, e1) is beaten when e2 <= e1 + (d2 - d1) x vmin2, that is when
 * e2 - d2 x vmin2 <= e1 - d1 x vmin2. Kept: done descending, each with a smaller e - done x vmin2
 * than all before, one state an amount.
 */
static size_t
merge(const struct state *next, struct run *runs, size_t n_runs, long double vmin2, struct state *out) {
        long double best = 0;
        size_t k = 0, p;

        while ((p = pick(next, runs, n_runs)) < n_runs) {
                const struct state *s = &next[runs[p].at++];
                long double g = s->energy - (long double) s->done * vmin2;

                if (k > 0 && g >= best)
                        continue;
                /* Equal amounts come one after the other: keep the cheaper. */
                if (k > 0 && s->done == out[k - 1].done)
                        k--;
                out[k++] = *s;
                best = g;
        }
        return k;
}

/* One window k from `front` (done descending) into a new front over the allowed points; the
 * deadlines of k are dues. *budget is what is left of the states that may be examined. */
static int
step(const struct work_model *m, const size_t *allowed, size_t n_allowed, const struct due *dues, size_t n_dues,
     work_u128 arrived, long double vmin2, uint64_t *budget, struct state **front, size_t *n_front) {
        _cleanup_free_ struct state *next = NULL;
        _cleanup_free_ struct run *runs = NULL;
        struct state *out;
        size_t n = 0;

        if (*n_front > WORK_OPTIMUM_MAX_WINDOW_STATES / n_allowed || *n_front * n_allowed > *budget)
                return -E2BIG;
        *budget -= *n_front * n_allowed;
        next = malloc((*n_front * n_allowed + 1) * sizeof(struct state));
        runs = calloc(n_allowed, sizeof(struct run));
        out = malloc((*n_front * n_allowed + 1) * sizeof(struct state));
        if (!next || !runs || !out) {
                free(out);
                return -ENOMEM;
        }
        for (size_t p = 0; p < n_allowed; p++) {
                uint64_t f = m->freqs[allowed[p]], cap = work_capacity(m, f);

                runs[p].at = n;
                for (size_t i = 0; i < *n_front; i++) {
                        work_u128 d = (*front)[i].done, nd = MIN(d + cap, arrived);

                        /* Less done meets fewer deadlines: the rest of the front fails too. */
                        if (!meets(dues, n_dues, d, f))
                                break;
                        next[n++] = (struct state){
                                .done = nd,
                                .energy = (*front)[i].energy +
                                        work_window_energy(m, allowed[p], (uint64_t) (nd - d)),
                        };
                }
                runs[p].end = n;
        }
        free(*front);
        *front = out;
        *n_front = merge(next, runs, n_allowed, vmin2, out);
        return 0;
}

int work_optimum(
        const struct work_model *m, const size_t *allowed, size_t n_allowed, size_t first,
        const struct work_trace *t, uint64_t max_states, long double *ret) {
        _cleanup_free_ struct due *dues = NULL;
        _cleanup_free_ struct state *front = NULL;
        size_t n_dues, n_front = 1, di = 0;
        work_u128 total, arrived = 0;
        uint64_t budget = max_states ?: WORK_OPTIMUM_MAX_STATES;
        long double best = 0, vmin2;
        bool found = false, fixed;
        int r;

        if (n_allowed == 0)
                return -EINVAL;
        vmin2 = m->volts[allowed[0]] * m->volts[allowed[0]];
        for (size_t p = 1; p < n_allowed; p++)
                vmin2 = MIN(vmin2, m->volts[allowed[p]] * m->volts[allowed[p]]);
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
                /* The first window runs before any sample: at the starting point, as every governor's. */
                fixed = k == 0 && first < m->n;
                r = step(
                        m, fixed ? &first : allowed, fixed ? 1 : n_allowed, dues + di, de - di, arrived,
                        vmin2, &budget, &front, &n_front);
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
