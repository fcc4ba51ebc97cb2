/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One managed device and its evaluation: sample -> governor -> range -> snap -> backend -> stats. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "governor.h"
#include "macro.h"
#include "opp.h"
#include "qos.h"
#include "stats.h"

enum df_mode {
        DF_MODE_GOVERN, /* devfreqd's governor decides, devfreqd sets the frequency */
        DF_MODE_CLAMP,  /* the kernel's governor runs, devfreqd writes the range endpoints */
        _DF_MODE_MAX,
        _DF_MODE_INVALID = -22,
};

const char *df_mode_to_string(enum df_mode m);
enum df_mode df_mode_from_string(const char *s);

/* How a device's decisions reach the hardware. Return 0 or a negative errno. */
struct df_backend_ops {
        /* govern mode: make `freq` the frequency; `previous` was applied before (0: none yet). */
        int (*set_frequency)(void *userdata, uint64_t freq, uint64_t previous);
        /* clamp mode: bound the kernel's governor to [min, max]. */
        int (*set_range)(void *userdata, uint64_t min, uint64_t max);
        /* clamp mode: devfreqd has nothing to say; give the limits back to whoever set them before.
         * 1 when that wrote, 0 when nothing was held. */
        int (*release_range)(void *userdata);
};

/* What one evaluation decided. */
struct df_evaluation {
        bool decided;      /* false: a polling governor without a complete sample yet */
        uint64_t governor; /* the governor's raw value (DF_FREQ_MAX = highest) */
        uint64_t target;   /* clamped into the effective range, before snapping */
        uint64_t applied;  /* the point chosen (govern) */
        uint64_t min, max; /* effective range */
        bool changed;      /* the applied point (govern) or the range (clamp) changed */
        bool wrote;        /* the backend was called */
        int error;         /* the backend's error, 0 on success */
};

struct df_device;
/* Called when something changed that needs a re-evaluation (QoS aggregate, OPP state). */
typedef void (*df_device_event_t)(struct df_device *d, void *userdata);

struct df_device {
        char *name;
        enum df_mode mode;

        struct df_opp_table opps;
        struct df_qos qos;
        struct df_governor governor;
        struct df_stats stats;
        struct df_device *parent; /* passive governor: the device followed */

        uint64_t admin_min; /* configuration bounds, 0 and UINT64_MAX when none */
        uint64_t admin_max;
        /* Clamp mode: the limits other writers left on the node bound the range, which requests
         * and configured bounds may narrow, never widen; 0 and UINT64_MAX when none. With
         * override_limits they are ignored and the range is written even with nothing to say. */
        uint64_t outer_min;
        uint64_t outer_max;
        bool override_limits;
        /* Hz per unit of the kernel's arithmetic on this kind of node (df_kind_unit_hz()): the
         * cpufreq governors truncate to whole kHz on a policy. 1 unless the spec says. */
        uint64_t unit_hz;
        bool holding; /* clamp mode: the range written is in force (not given back) */

        const struct df_backend_ops *backend;
        void *backend_userdata;

        df_device_event_t event;
        void *event_userdata;

        /* Load: the last complete sample, how long it lasted and the polling interval (µs, 0:
         * unknown); fresh until the governor has decided on it once. */
        bool has_sample;
        bool sample_fresh;
        uint64_t busy;
        uint64_t total;
        uint64_t sample_usec;
        uint64_t interval_usec;
        uint64_t sample_current; /* the frequency in force when it was taken: busy ran at it */

        bool started;
        bool applied;       /* false: the next evaluation writes (start, a failed write, forced) */
        uint64_t current;   /* the frequency in force (govern: last applied) */
        uint64_t target;    /* last TargetFrequency */
        uint64_t range_min; /* clamp mode: endpoints last written */
        uint64_t range_max;
        int last_error; /* the backend's last error, 0 after a success */

        /* Every point, ascending: the statistics columns and the passive index mapping. */
        uint64_t *table;
        uint32_t *table_microvolt; /* each point's voltage, 0 = unknown */
        size_t n_table;

        /*
         * Cache rebuilt after an OPP, QoS or admin-bound change: the points the snap may choose
         * (usable, or the enabled ones when a ceiling below every usable point overrides the
         * latency aggregate) and the effective range.
         */
        uint64_t *usable;
        size_t n_usable;
        uint64_t eff_min;
        uint64_t eff_max;
        bool dirty;
};

int df_device_new(const char *name, enum df_mode mode, struct df_device **ret);
struct df_device *df_device_free(struct df_device *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct df_device *, df_device_free);

void df_device_set_backend(struct df_device *d, const struct df_backend_ops *ops, void *userdata);
void df_device_set_event_handler(struct df_device *d, df_device_event_t event, void *userdata);

/*
 * Freeze the OPP table into the statistics columns and start the governor with `current`, the
 * frequency in force (initial-frequency, or what sysfs reports). Points are added before;
 * afterwards they are only enabled and disabled. -EINVAL when no point is enabled.
 */
int df_device_start(struct df_device *d, uint64_t current, uint64_t now_usec);

/* Switch governor (and its default tunables), restarting it from the frequency in force. */
int df_device_set_governor(struct df_device *d, const struct df_governor_ops *ops);

/* Configuration bounds; 0 / UINT64_MAX for none. Asks for a re-evaluation. */
void df_device_set_admin_range(struct df_device *d, uint64_t min, uint64_t max);

/* Clamp mode: the limits found on the node (0 / UINT64_MAX for none). Asks for a re-evaluation. */
void df_device_set_outer_range(struct df_device *d, uint64_t min, uint64_t max);

/* A new complete sample (busy and total over the last interval), of unknown duration, taken at
 * the frequency in force now. */
void df_device_set_sample(struct df_device *d, uint64_t busy, uint64_t total);
/* The same, lasting duration_usec of a polling interval of interval_usec (0: unknown): ondemand
 * and conservative need both for dbs_update()'s long-idle rule. */
void df_device_set_timed_sample(
        struct df_device *d, uint64_t busy, uint64_t total, uint64_t duration_usec, uint64_t interval_usec);

/* A device that replaces `from` (a reload) goes on with its last sample, as a new one to decide on. */
void df_device_carry_sample(struct df_device *d, const struct df_device *from);

/* The frequency in force as read back or overridden (devfreq-replay's `current` column). */
void df_device_set_current(struct df_device *d, uint64_t freq);

/* Whether this device takes a load sample at every polling interval. */
bool df_device_polls(const struct df_device *d);

/* True when some point has a configured latency (latency requests need it). */
bool df_device_has_latency_data(const struct df_device *d);

/* The effective range now: the OPP table's bounds narrowed by the QoS aggregates and the
 * configured bounds (devfreqd(8), "Effective range"). */
void df_device_get_range(struct df_device *d, uint64_t *ret_min, uint64_t *ret_max);

/* The usable points now, ascending. Valid until the next OPP or latency change. */
void df_device_get_usable(struct df_device *d, const uint64_t **ret, size_t *ret_n);

/* Load percentage of the last sample, 0 without one. */
unsigned df_device_load(const struct df_device *d);

/*
 * One evaluation. A poll calls df_device_set_sample() first; an event reuses the last sample.
 * Returns 1 when the applied point (or, in clamp mode, the range) changed, 0 when nothing
 * changed, or the backend's negative errno: the decision stands, last_error is set, and the
 * next evaluation writes whatever it decides, a decision equal to the one in force included (the
 * failed write may have landed in part). `ret` may be NULL.
 */
int df_device_evaluate(struct df_device *d, uint64_t now_usec, struct df_evaluation *ret);

/* Make the next evaluation write even when its decision is unchanged (a foreign writer changed
 * the node, or the kernel governor had to be selected again); a failed write does it itself. */
void df_device_force_write(struct df_device *d);

/* Set the OPP's admin flag; disabling the last point the administrator has enabled is -EBUSY,
 * whatever a thermal cap leaves available (it keeps one of theirs). 1 changed, 0 not. */
int df_device_set_opp_enabled(struct df_device *d, uint64_t freq, bool enabled);

/* The lowest cap of the device's tripped thermal rules (0: none): df_opp_set_cap() on its table,
 * which keeps it (opps.cap), re-evaluated through the notifier like any OPP change. 1 when a
 * point's availability flipped. */
int df_device_set_thermal_cap(struct df_device *d, uint64_t cap);
