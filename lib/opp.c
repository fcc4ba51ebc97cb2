/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Operating-performance-point tables: a sorted array with the kernel OPP library's lookups and notifier rules. */

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "opp.h"

void df_opp_table_init(struct df_opp_table *t) {
        assert(t);

        *t = (struct df_opp_table){};
}

void df_opp_table_done(struct df_opp_table *t) {
        assert(t);

        free(t->opps);
        *t = (struct df_opp_table){};
}

void df_opp_table_set_notifier(struct df_opp_table *t, df_opp_notify_t notify, void *userdata) {
        assert(t);

        t->notify = notify;
        t->notify_userdata = userdata;
}

static void notify(struct df_opp_table *t, enum df_opp_event event, const struct df_opp *opp) {
        if (t->notify)
                t->notify(t, event, opp, t->notify_userdata);
}

/* Index of the first point with freq >= f, or with `upper` freq > f (n when there is none). */
static size_t opp_bound(const struct df_opp_table *t, uint64_t f, bool upper) {
        size_t lo = 0, hi = t->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (t->opps[mid].freq < f || (upper && t->opps[mid].freq == f))
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* Availability from the two owners; a notification when it flips. 1 when it did. */
static int update_availability(struct df_opp_table *t, struct df_opp *o) {
        bool available = !o->disabled && !o->capped;

        if (o->enabled == available)
                return 0;
        o->enabled = available;
        notify(t, available ? DF_OPP_EVENT_ENABLE : DF_OPP_EVENT_DISABLE, o);
        return 1;
}

/*
 * The cap's choice over the administrator's states as they are now (df_opp_set_cap()). Run after
 * every change of either: the point kept when the cap would leave none must go once the
 * administrator enables one under the cap, and another must be kept when they disable it.
 */
static int apply_cap(struct df_opp_table *t) {
        struct df_opp *keep = NULL;
        bool any = false;
        int flips = 0;

        for (size_t i = 0; i < t->n; i++) {
                struct df_opp *o = &t->opps[i];
                bool capped = t->cap > 0 && o->freq > t->cap;

                if (!o->disabled && !keep)
                        keep = o; /* the lowest point the administrator has enabled */
                any = any || (!o->disabled && !capped);
        }
        for (size_t i = 0; i < t->n; i++) {
                struct df_opp *o = &t->opps[i];

                o->capped = t->cap > 0 && o->freq > t->cap && (any || o != keep);
                if (!o->disabled && !o->capped)
                        flips += update_availability(t, o);
        }
        /* Then what goes: a listener never finds the table emptier than it ends. */
        for (size_t i = 0; i < t->n; i++)
                flips += update_availability(t, &t->opps[i]);
        return flips;
}

int df_opp_find(const struct df_opp_table *t, uint64_t freq) {
        assert(t);

        size_t i = opp_bound(t, freq, false);

        if (i >= t->n || t->opps[i].freq != freq)
                return -ENODEV;
        return (int) i;
}

/* kernel: dev_pm_opp_add() → _opp_add(): duplicates are 0 when identical and available, else -EEXIST. */
int df_opp_add(struct df_opp_table *t, uint64_t freq, uint32_t microvolt, uint32_t latency_us) {
        size_t i;
        int r;

        assert(t);

        if (freq == 0)
                return -EINVAL;

        i = opp_bound(t, freq, false);
        if (i < t->n && t->opps[i].freq == freq) {
                const struct df_opp *o = &t->opps[i];
                return o->enabled && o->microvolt == microvolt ? 0 : -EEXIST;
        }

        /* Indices are returned as int. */
        if (t->n >= INT_MAX)
                return -ENOMEM;
        r = GREEDY_GROW(t->opps, t->allocated, t->n + 1);
        if (r < 0)
                return r;

        memmove(&t->opps[i + 1], &t->opps[i], (t->n - i) * sizeof(struct df_opp));
        t->opps[i] = (struct df_opp){
                .freq = freq,
                .microvolt = microvolt,
                .latency_us = latency_us,
                .enabled = true,
        };
        t->n++;
        notify(t, DF_OPP_EVENT_ADD, &t->opps[i]);
        (void) apply_cap(t);
        return 1;
}

/*
 * kernel: dev_pm_opp_remove(). The kernel notifies while the point is still listed; here the
 * table already reflects every event when a listener runs, so REMOVE carries a copy.
 */
int df_opp_remove(struct df_opp_table *t, uint64_t freq) {
        struct df_opp removed;
        int i;

        assert(t);

        i = df_opp_find(t, freq);
        if (i < 0)
                return i;

        removed = t->opps[i];
        memmove(&t->opps[i], &t->opps[i + 1], (t->n - (size_t) i - 1) * sizeof(struct df_opp));
        t->n--;
        notify(t, DF_OPP_EVENT_REMOVE, &removed);
        (void) apply_cap(t);
        return 0;
}

/* kernel: _opp_set_availability(): no notification unless the state flips. */
int df_opp_set_enabled(struct df_opp_table *t, uint64_t freq, bool enabled) {
        int i;

        assert(t);

        i = df_opp_find(t, freq);
        if (i < 0)
                return i;
        if (t->opps[i].disabled == !enabled)
                return 0;

        t->opps[i].disabled = !enabled;
        (void) apply_cap(t);
        return 1;
}

int df_opp_set_cap(struct df_opp_table *t, uint64_t cap) {
        assert(t);

        t->cap = cap;
        return apply_cap(t);
}

int df_opp_enable(struct df_opp_table *t, uint64_t freq) {
        return df_opp_set_enabled(t, freq, true);
}

int df_opp_disable(struct df_opp_table *t, uint64_t freq) {
        return df_opp_set_enabled(t, freq, false);
}

/* kernel: dev_pm_opp_find_freq_ceil(): the first available point at or above *freq. */
int df_opp_find_ceil(const struct df_opp_table *t, uint64_t *freq) {
        assert(t);
        assert(freq);

        for (size_t i = opp_bound(t, *freq, false); i < t->n; i++)
                if (t->opps[i].enabled) {
                        *freq = t->opps[i].freq;
                        return (int) i;
                }
        return -ERANGE;
}

/* kernel: dev_pm_opp_find_freq_floor(): the last available point at or below *freq. */
int df_opp_find_floor(const struct df_opp_table *t, uint64_t *freq) {
        assert(t);
        assert(freq);

        size_t i = opp_bound(t, *freq, true);

        while (i > 0) {
                i--;
                if (t->opps[i].enabled) {
                        *freq = t->opps[i].freq;
                        return (int) i;
                }
        }
        return -ERANGE;
}

/* kernel: dev_pm_opp_find_freq_exact(): the availability must equal `enabled`. */
int df_opp_find_exact(const struct df_opp_table *t, uint64_t freq, bool enabled) {
        assert(t);

        int i = df_opp_find(t, freq);

        if (i < 0 || t->opps[i].enabled != enabled)
                return -ERANGE;
        return i;
}

/* kernel: dev_pm_opp_get_opp_count() */
size_t df_opp_count_enabled(const struct df_opp_table *t) {
        size_t k = 0;

        assert(t);

        for (size_t i = 0; i < t->n; i++)
                if (t->opps[i].enabled)
                        k++;
        return k;
}

size_t df_opp_count_admin_enabled(const struct df_opp_table *t) {
        size_t k = 0;

        assert(t);

        for (size_t i = 0; i < t->n; i++)
                if (!t->opps[i].disabled)
                        k++;
        return k;
}

/* kernel: devfreq_recommended_opp() */
int df_opp_recommended(const struct df_opp_table *t, uint64_t *freq, unsigned flags) {
        int i;

        assert(t);
        assert(freq);

        if (flags & DF_FLAG_LEAST_UPPER_BOUND) {
                i = df_opp_find_floor(t, freq);
                if (i == -ERANGE)
                        i = df_opp_find_ceil(t, freq);
        } else {
                i = df_opp_find_ceil(t, freq);
                if (i == -ERANGE)
                        i = df_opp_find_floor(t, freq);
        }
        return i;
}

/* Index of the first element >= f, or with `upper` > f (n when there is none). */
static size_t freqs_bound(const uint64_t *v, size_t n, uint64_t f, bool upper) {
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (v[mid] < f || (upper && v[mid] == f))
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

int df_freqs_ceil(const uint64_t *v, size_t n, uint64_t f) {
        assert(v || n == 0);

        size_t i = freqs_bound(v, n, f, false);

        if (i >= n || i > INT_MAX)
                return -ERANGE;
        return (int) i;
}

int df_freqs_floor(const uint64_t *v, size_t n, uint64_t f) {
        assert(v || n == 0);

        size_t i = freqs_bound(v, n, f, true);

        if (i == 0 || i - 1 > INT_MAX)
                return -ERANGE;
        return (int) (i - 1);
}
