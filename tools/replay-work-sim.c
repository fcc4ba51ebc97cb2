/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The closed-loop window arithmetic of devfreq-replay --work: capacity, first-in first-out work,
 * carry-over, deadlines and the energy model (devfreq-replay(1), CLOSED LOOP). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay-work.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

uint64_t work_capacity(const struct work_model *m, uint64_t freq) {
        work_u128 c = (work_u128) freq * m->interval_ns / NSEC_PER_SEC;

        return c > UINT64_MAX ? UINT64_MAX : (uint64_t) c;
}

/* Static power: static_power x f_top x V_top^2, scaled by V / V_top, for the whole window. */
long double work_window_energy(const struct work_model *m, size_t i, uint64_t done) {
        long double v = m->volts[i], vtop = m->volts[m->n - 1];
        long double seconds = (long double) m->interval_ns / 1e9L;

        return v * v * (long double) done +
                m->static_power * (long double) m->freqs[m->n - 1] * vtop * v * seconds;
}

int work_model_init(
        struct work_model *m, const struct df_opp_table *t, uint64_t interval_usec, long double static_power) {
        size_t with = 0;
        uint64_t *freqs;

        if (t->n == 0)
                return -EINVAL;
        if (interval_usec > UINT64_MAX / 1000)
                return -ERANGE;
        for (size_t i = 0; i < t->n; i++)
                with += t->opps[i].microvolt > 0;
        if (with != 0 && with != t->n)
                return -EINVAL;
        freqs = calloc(t->n, sizeof(uint64_t));
        m->volts = calloc(t->n, sizeof(long double));
        if (!freqs || !m->volts) {
                free(freqs);
                free(m->volts);
                return -ENOMEM;
        }
        for (size_t i = 0; i < t->n; i++) {
                freqs[i] = t->opps[i].freq;
                /* Without voltages V is proportional to f, in units of V_top. */
                m->volts[i] = with ? (long double) t->opps[i].microvolt / 1e6L :
                                     (long double) freqs[i] / (long double) t->opps[t->n - 1].freq;
        }
        m->freqs = freqs;
        m->n = t->n;
        m->interval_ns = interval_usec * 1000;
        m->static_power = static_power;
        return 0;
}

void work_model_done(struct work_model *m) {
        free((uint64_t *) m->freqs);
        free(m->volts);
        *m = (struct work_model){};
}

void work_sim_init(struct work_sim *s, const struct work_model *m) {
        *s = (struct work_sim){ .model = m };
}

void work_sim_done(struct work_sim *s) {
        free(s->jobs);
        free(s->delays);
        *s = (struct work_sim){};
}

int work_sim_add(struct work_sim *s, uint64_t cycles, uint64_t deadline_ns) {
        uint64_t start = s->window * s->model->interval_ns;

        if (cycles == 0)
                return 0;
        if (deadline_ns == 0 || deadline_ns > UINT64_MAX - start)
                return -ERANGE;
        if (s->head > 0 && s->head == s->n)
                s->head = s->n = 0;
        if (s->head > s->allocated / 2) {
                memmove(s->jobs, s->jobs + s->head, (s->n - s->head) * sizeof(struct work_job));
                s->n -= s->head;
                s->head = 0;
        }
        if (GREEDY_GROW(s->jobs, s->allocated, s->n + 1) < 0)
                return -ENOMEM;
        s->jobs[s->n++] = (struct work_job){
                .left = cycles,
                .arrival_ns = start,
                .deadline_ns = start + deadline_ns,
        };
        s->backlog += cycles;
        s->n_jobs++;
        return 0;
}

/* Time to do `cycles` at `freq`, ns, rounded up. */
static uint64_t busy_ns(uint64_t cycles, uint64_t freq) {
        work_u128 t = ((work_u128) cycles * NSEC_PER_SEC + freq - 1) / freq;

        return t > UINT64_MAX ? UINT64_MAX : (uint64_t) t;
}

int work_sim_window(struct work_sim *s, size_t i, struct work_window *ret) {
        const struct work_model *m = s->model;
        uint64_t freq = m->freqs[i], cap = work_capacity(m, freq), used = 0;
        uint64_t start = s->window * m->interval_ns;
        struct work_window w = { .total_ns = m->interval_ns };

        while (s->head < s->n && used < cap) {
                struct work_job *j = &s->jobs[s->head];
                uint64_t take = MIN(j->left, cap - used), end;

                used += take;
                j->left -= take;
                if (j->left > 0)
                        break;
                end = start + busy_ns(used, freq);
                if (end > j->deadline_ns)
                        w.missed++;
                if (GREEDY_GROW(s->delays, s->allocated_delays, s->n_delays + 1) < 0)
                        return -ENOMEM;
                s->delays[s->n_delays++] = end - j->arrival_ns;
                s->head++;
        }
        w.done = used;
        w.busy_ns = busy_ns(used, freq);
        s->backlog -= used;
        s->done += used;
        s->misses += w.missed;
        s->energy += work_window_energy(m, i, used);
        s->window++;
        *ret = w;
        return 0;
}

static int compare_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

uint64_t work_sim_delay_percentile(struct work_sim *s, unsigned percent) {
        size_t rank;

        if (s->n_delays == 0)
                return 0;
        qsort(s->delays, s->n_delays, sizeof(uint64_t), compare_u64);
        rank = (s->n_delays * percent + 99) / 100;
        return s->delays[rank > 0 ? rank - 1 : 0];
}

int work_trace_add(struct work_trace *t, uint64_t cycles, uint64_t deadline_ns) {
        /* Both arrays have room for t->allocated; t->allocated grows once both have grown. */
        size_t a = t->allocated, b = t->allocated;

        if (GREEDY_GROW(t->cycles, a, t->n + 1) < 0 || GREEDY_GROW(t->deadline_ns, b, t->n + 1) < 0)
                return -ENOMEM;
        t->allocated = a;
        t->cycles[t->n] = cycles;
        t->deadline_ns[t->n++] = deadline_ns;
        return 0;
}

void work_trace_done(struct work_trace *t) {
        free(t->cycles);
        free(t->deadline_ns);
        *t = (struct work_trace){};
}
