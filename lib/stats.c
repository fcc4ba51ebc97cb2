/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-device transition statistics, accounted as the kernel's devfreq core does, in µs. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "stats.h"

static int stats_index(const struct df_stats *s, uint64_t freq) {
        for (size_t i = 0; i < s->n; i++)
                if (s->freqs[i] == freq)
                        return (int) i;
        return -ENOENT;
}

int df_stats_init(struct df_stats *s, const uint64_t *freqs, size_t n, uint64_t now_usec) {
        _cleanup_free_ uint64_t *f = NULL, *t = NULL, *tr = NULL;

        assert(s);
        assert(freqs || n == 0);

        if (n == 0 || n > DF_STATS_MAX_STATES)
                return -EINVAL;
        f = malloc(n * sizeof(uint64_t));
        t = calloc(n, sizeof(uint64_t));
        tr = calloc(n * n, sizeof(uint64_t));
        if (!f || !t || !tr)
                return -ENOMEM;
        memcpy(f, freqs, n * sizeof(uint64_t));

        *s = (struct df_stats){
                .n = n,
                .freqs = TAKE_PTR(f),
                .time_us = TAKE_PTR(t),
                .trans = TAKE_PTR(tr),
                .last_update = now_usec,
                .cur = -1,
        };
        return 0;
}

void df_stats_done(struct df_stats *s) {
        assert(s);

        free(s->freqs);
        free(s->time_us);
        free(s->trans);
        free(s->weight);
        *s = (struct df_stats){ .cur = -1 };
}

/* The energy of the interval since the last update, at the frequency in force. */
static double running_energy(const struct df_stats *s, uint64_t now_usec) {
        if (s->cur < 0 || !s->weight || now_usec <= s->last_update)
                return 0;
        return (double) (now_usec - s->last_update) / 1e6 * s->weight[s->cur];
}

int df_stats_set_voltages(struct df_stats *s, const uint32_t *microvolt) {
        double *w, top = 0;

        assert(s);

        for (size_t i = 0; i < s->n; i++)
                if (!microvolt || microvolt[i] == 0) {
                        free(s->weight);
                        s->weight = NULL;
                        return 0;
                }
        w = malloc(s->n * sizeof(double));
        if (!w)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++) {
                double v = microvolt[i] / 1e6;
                w[i] = (double) s->freqs[i] * v * v;
                top = MAX(top, w[i]);
        }
        for (size_t i = 0; i < s->n; i++)
                w[i] /= top;
        free(s->weight);
        s->weight = w;
        return 0;
}

double df_stats_energy(const struct df_stats *s, uint64_t now_usec) {
        assert(s);

        return s->energy + running_energy(s, now_usec);
}

/* The time in state at `freq` at the last reading (k: where to look first). */
static uint64_t last_ms(const struct df_stats_outside *o, size_t k, uint64_t freq) {
        if (k < o->n && o->freqs[k] == freq)
                return o->time_ms[k];
        for (size_t i = 0; i < o->n; i++)
                if (o->freqs[i] == freq)
                        return o->time_ms[i];
        return 0;
}

int df_stats_outside_start(
        struct df_stats_outside *o, double energy, const uint64_t *freqs, const uint64_t *time_ms, size_t n,
        uint64_t total) {
        _cleanup_free_ uint64_t *f = NULL, *t = NULL;

        assert(o);
        assert(freqs || n == 0);
        assert(time_ms || n == 0);

        if (n > 0) {
                f = malloc(n * sizeof(uint64_t));
                t = malloc(n * sizeof(uint64_t));
                if (!f || !t)
                        return -ENOMEM;
                memcpy(f, freqs, n * sizeof(uint64_t));
                memcpy(t, time_ms, n * sizeof(uint64_t));
        }
        free(o->freqs);
        free(o->time_ms);
        o->energy = energy;
        o->freqs = TAKE_PTR(f);
        o->time_ms = TAKE_PTR(t);
        o->n = n;
        o->total = total;
        return 0;
}

int df_stats_outside_update(
        struct df_stats_outside *o, const struct df_stats *s, const uint64_t *freqs, const uint64_t *time_ms,
        size_t n, uint64_t total) {
        bool reset = total < o->total;
        double sum = 0;

        assert(o);
        assert(s);
        assert(freqs || n == 0);
        assert(time_ms || n == 0);

        if (o->from_next) {
                int r = df_stats_outside_start(o, o->energy, freqs, time_ms, n, total);
                o->from_next = r < 0;
                return r;
        }
        /* A reset zeroes every count at once: one lower count, or fewer transitions, means all of
         * them start afresh. */
        for (size_t k = 0; k < n && !reset; k++)
                reset = time_ms[k] < last_ms(o, k, freqs[k]);
        for (size_t k = 0; s->weight && k < n; k++) {
                int i = stats_index(s, freqs[k]);
                uint64_t last = reset ? 0 : last_ms(o, k, freqs[k]);
                if (i >= 0)
                        sum += (double) (time_ms[k] - last) / 1e3 * s->weight[i];
        }
        return df_stats_outside_start(o, o->energy + sum, freqs, time_ms, n, total);
}

void df_stats_outside_resume(struct df_stats_outside *o, double energy) {
        assert(o);

        df_stats_outside_done(o);
        o->energy = energy;
        o->from_next = true;
}

void df_stats_outside_done(struct df_stats_outside *o) {
        assert(o);

        free(o->freqs);
        free(o->time_ms);
        *o = (struct df_stats_outside){};
}

void df_stats_carry(struct df_stats *to, const struct df_stats *from, uint64_t now_usec) {
        int cur, map[DF_STATS_MAX_STATES]; /* to's index -> from's, or -ENOENT */

        assert(to);
        assert(from);
        assert(to->n <= DF_STATS_MAX_STATES);

        /* One lookup a point: the transition matrix is then n² reads, not n³ scans. */
        for (size_t i = 0; i < to->n; i++)
                map[i] = stats_index(from, to->freqs[i]);
        for (size_t i = 0; i < to->n; i++) {
                int fi = map[i];
                to->time_us[i] = 0;
                if (fi >= 0)
                        to->time_us[i] = from->time_us[fi] +
                                (fi == from->cur && now_usec > from->last_update ? now_usec - from->last_update :
                                                                                   0);
                for (size_t j = 0; j < to->n; j++)
                        to->trans[i * to->n + j] = fi >= 0 && map[j] >= 0 ?
                                from->trans[(size_t) fi * from->n + (size_t) map[j]] :
                                0;
        }
        cur = from->cur >= 0 ? stats_index(to, from->freqs[from->cur]) : -1;
        to->cur = cur >= 0 ? cur : -1;
        to->total = from->total;
        to->energy = df_stats_energy(from, now_usec);
        to->last_update = now_usec;
}

/* kernel: devfreq_update_status() */
int df_stats_update(struct df_stats *s, uint64_t freq, uint64_t now_usec) {
        int next;

        assert(s);

        if (s->cur >= 0 && now_usec > s->last_update) {
                s->time_us[s->cur] += now_usec - s->last_update;
                s->energy += running_energy(s, now_usec);
        }
        s->last_update = now_usec;

        next = stats_index(s, freq);
        if (next < 0) {
                s->cur = -1;
                return -EINVAL;
        }
        if (s->cur >= 0 && next != s->cur) {
                s->trans[(size_t) s->cur * s->n + (size_t) next]++;
                s->total++;
        }
        s->cur = next;
        return 0;
}

void df_stats_reset(struct df_stats *s, uint64_t now_usec) {
        assert(s);

        memset(s->time_us, 0, s->n * sizeof(uint64_t));
        memset(s->trans, 0, s->n * s->n * sizeof(uint64_t));
        s->total = 0;
        s->energy = 0;
        s->last_update = now_usec;
}

int df_stats_time_ms(const struct df_stats *s, uint64_t now_usec, uint64_t **ret) {
        assert(s);
        assert(ret);

        uint64_t *ms = malloc(s->n * sizeof(uint64_t));

        if (!ms)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++) {
                uint64_t us = s->time_us[i];
                if ((int) i == s->cur && now_usec > s->last_update)
                        us += now_usec - s->last_update;
                ms[i] = us / 1000;
        }
        *ret = ms;
        return 0;
}

/* kernel: trans_stat_show(), with the row marker of the fixed form (freq_table[i]). */
int df_stats_format_table(
        const uint64_t *freqs, const uint64_t *time_ms, const uint64_t *trans, size_t n, uint64_t total,
        uint64_t current, char **ret) {
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        assert(ret);

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;

        fputs("     From  :   To\n", f);
        fputs("           :", f);
        for (size_t j = 0; j < n; j++)
                fprintf(f, "%10" PRIu64, freqs[j]);
        fputs("   time(ms)\n", f);

        for (size_t i = 0; i < n; i++) {
                fputc(freqs[i] == current ? '*' : ' ', f);
                fprintf(f, "%10" PRIu64 ":", freqs[i]);
                for (size_t j = 0; j < n; j++)
                        fprintf(f, "%10" PRIu64, trans[i * n + j]);
                fprintf(f, "%10" PRIu64 "\n", time_ms[i]);
        }
        fprintf(f, "Total transition : %" PRIu64 "\n", total);

        if (ferror(f)) {
                fclose(f);
                free(text);
                return -ENOMEM;
        }
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret = text;
        return 0;
}

int df_stats_format(const struct df_stats *s, uint64_t now_usec, char **ret) {
        assert(s);
        assert(ret);

        _cleanup_free_ uint64_t *ms = NULL;
        /* Frequencies are never 0, so 0 marks no row when nothing in the table is in force. */
        uint64_t current = s->cur >= 0 ? s->freqs[s->cur] : 0;
        int r;

        r = df_stats_time_ms(s, now_usec, &ms);
        if (r < 0)
                return r;
        return df_stats_format_table(s->freqs, ms, s->trans, s->n, s->total, current, ret);
}
