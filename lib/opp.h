/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Operating-performance-point tables with the kernel OPP library's lookups and notifier rules. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct df_opp {
        uint64_t freq;       /* Hz */
        uint32_t microvolt;  /* 0 = unknown */
        uint32_t latency_us; /* switching latency, 0 = unknown */
        bool enabled;        /* the kernel's "available": neither disabled nor capped */
        bool disabled;       /* by dev_pm_opp_disable() (the administrator) */
        bool capped;         /* above a thermal cap: disabled by it, whatever the administrator says */
};

enum df_opp_event {
        DF_OPP_EVENT_ADD,
        DF_OPP_EVENT_REMOVE,
        DF_OPP_EVENT_ENABLE,
        DF_OPP_EVENT_DISABLE,
};

struct df_opp_table;
typedef void (*df_opp_notify_t)(
        struct df_opp_table *table, enum df_opp_event event, const struct df_opp *opp, void *userdata);

/* Points sorted by ascending frequency; frequencies are unique. */
struct df_opp_table {
        struct df_opp *opps;
        size_t n;
        size_t allocated;

        uint64_t cap; /* Hz, the thermal cap (df_opp_set_cap()); 0 for none */

        df_opp_notify_t notify;
        void *notify_userdata;
};

/* devfreq_recommended_opp() flag: the value is an upper bound (least upper bound, round down). */
#define DF_FLAG_LEAST_UPPER_BOUND 0x1u

void df_opp_table_init(struct df_opp_table *t);
void df_opp_table_done(struct df_opp_table *t);
void df_opp_table_set_notifier(struct df_opp_table *t, df_opp_notify_t notify, void *userdata);

/*
 * kernel: dev_pm_opp_add(). Returns 1 when added (notifies ADD, enabled; then DISABLE should the
 * cap take it, see df_opp_set_cap()), 0 when an enabled
 * point of that frequency and voltage exists already (nothing added, no notification),
 * -EEXIST when a point of that frequency exists with another voltage or disabled, -EINVAL for
 * frequency 0, -ENOMEM.
 */
int df_opp_add(struct df_opp_table *t, uint64_t freq, uint32_t microvolt, uint32_t latency_us);

/* kernel: dev_pm_opp_remove(). 0 (notifies REMOVE) or -ENODEV when there is no such point. The
 * cap's choice is made again (df_opp_set_cap()). */
int df_opp_remove(struct df_opp_table *t, uint64_t freq);

/*
 * kernel: dev_pm_opp_enable()/dev_pm_opp_disable(). Exact frequency, any state. Returns 1 when
 * the administrator's state flipped, 0 when it was already so (no notification), -ENODEV when
 * there is no such point. Notifies ENABLE/DISABLE for each point whose availability flips: under
 * a cap, the point the cap keeps (df_opp_set_cap()) may change too.
 */
int df_opp_enable(struct df_opp_table *t, uint64_t freq);
int df_opp_disable(struct df_opp_table *t, uint64_t freq);
int df_opp_set_enabled(struct df_opp_table *t, uint64_t freq, bool enabled);

/*
 * A thermal cap: every point above `cap` (Hz; 0 for none) is disabled by the cap, apart from the
 * administrator's own state, and becomes available again, if the administrator has it enabled,
 * once the cap is lifted or raised. An enable by the administrator does not undo the cap. Should
 * the cap and the administrator's disables together leave no point, the lowest point the
 * administrator has enabled stays available. The table keeps the cap, and the points' availability
 * is always this function of the cap and the administrator's states: every add, remove, enable and
 * disable decides again. Notifies ENABLE/DISABLE for each point whose availability flips; returns
 * how many did.
 */
int df_opp_set_cap(struct df_opp_table *t, uint64_t cap);

/*
 * Lookups over enabled points only. On success return the index of the point in t->opps and
 * set *freq to its frequency; on a miss return -ERANGE and leave *freq alone.
 * kernel: dev_pm_opp_find_freq_ceil(), dev_pm_opp_find_freq_floor().
 */
int df_opp_find_ceil(const struct df_opp_table *t, uint64_t *freq);
int df_opp_find_floor(const struct df_opp_table *t, uint64_t *freq);

/* kernel: dev_pm_opp_find_freq_exact(): only points whose enabled flag equals `enabled`. */
int df_opp_find_exact(const struct df_opp_table *t, uint64_t freq, bool enabled);

/* Any point of that frequency, whatever its state: index or -ENODEV. */
int df_opp_find(const struct df_opp_table *t, uint64_t freq);

/* kernel: dev_pm_opp_get_opp_count(): the number of enabled points. */
size_t df_opp_count_enabled(const struct df_opp_table *t);

/* The number of points the administrator has enabled (not disabled), capped or not. */
size_t df_opp_count_admin_enabled(const struct df_opp_table *t);

/*
 * kernel: devfreq_recommended_opp(). With DF_FLAG_LEAST_UPPER_BOUND: floor, falling back to
 * ceil; without: ceil, falling back to floor. Index and *freq updated, or -ERANGE.
 */
int df_opp_recommended(const struct df_opp_table *t, uint64_t *freq, unsigned flags);

/*
 * The same lookups over a plain ascending array of frequencies (a device's usable points):
 * index of the first element >= f, of the last element <= f, or -ERANGE.
 */
int df_freqs_ceil(const uint64_t *v, size_t n, uint64_t f);
int df_freqs_floor(const uint64_t *v, size_t n, uint64_t f);
