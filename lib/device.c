/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A device's evaluation, the devfreq core's update_devfreq() path: governor, effective range,
 * clamp, snap to a usable point, backend, statistics. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "macro.h"
#include "qos-binding.h"

static const char *const mode_table[_DF_MODE_MAX] = {
        [DF_MODE_GOVERN] = "govern",
        [DF_MODE_CLAMP] = "clamp",
};

DEFINE_STRING_TABLE(df_mode, enum df_mode, mode_table, _DF_MODE_MAX, _DF_MODE_INVALID)

static void refresh(struct df_device *d);

static void device_changed(struct df_device *d) {
        d->dirty = true;
        /* At once, not at the next evaluation: the requests' binding time starts and stops now. */
        if (d->started && df_opp_count_enabled(&d->opps) > 0)
                refresh(d);
        if (d->event)
                d->event(d, d->event_userdata);
}

static void
on_opp_event(struct df_opp_table *t, enum df_opp_event event, const struct df_opp *opp, void *userdata) {
        device_changed(userdata);
}

static void on_qos_event(struct df_qos *q, enum df_qos_type type, uint64_t aggregate, void *userdata) {
        device_changed(userdata);
}

int df_device_new(const char *name, enum df_mode mode, struct df_device **ret) {
        struct df_device *d;

        assert(ret);

        if (!name || mode < 0 || mode >= _DF_MODE_MAX)
                return -EINVAL;
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->name = strdup(name);
        if (!d->name) {
                free(d);
                return -ENOMEM;
        }
        d->mode = mode;
        d->admin_max = UINT64_MAX;
        d->outer_max = UINT64_MAX;
        d->unit_hz = 1;
        d->dirty = true;
        df_opp_table_init(&d->opps);
        df_opp_table_set_notifier(&d->opps, on_opp_event, d);
        df_qos_init(&d->qos);
        df_qos_set_notifier(&d->qos, on_qos_event, d);
        df_governor_init(&d->governor, &df_governor_performance);
        d->stats.cur = -1;
        *ret = d;
        return 0;
}

struct df_device *df_device_free(struct df_device *d) {
        if (!d)
                return NULL;
        df_qos_done(&d->qos);
        df_opp_table_done(&d->opps);
        df_governor_done(&d->governor);
        if (d->started)
                df_stats_done(&d->stats);
        free(d->table);
        free(d->table_microvolt);
        free(d->usable);
        free(d->name);
        free(d);
        return NULL;
}

void df_device_set_backend(struct df_device *d, const struct df_backend_ops *ops, void *userdata) {
        assert(d);

        d->backend = ops;
        d->backend_userdata = userdata;
}

void df_device_set_event_handler(struct df_device *d, df_device_event_t event, void *userdata) {
        assert(d);

        d->event = event;
        d->event_userdata = userdata;
}

int df_device_start(struct df_device *d, uint64_t current, uint64_t now_usec) {
        assert(d);

        _cleanup_free_ uint64_t *table = NULL, *usable = NULL;
        _cleanup_free_ uint32_t *microvolt = NULL;
        size_t n = d->opps.n;
        int r;

        if (d->started)
                return -EALREADY;
        if (n == 0 || df_opp_count_enabled(&d->opps) == 0)
                return -EINVAL;

        table = malloc(n * sizeof(uint64_t));
        usable = malloc(n * sizeof(uint64_t));
        microvolt = malloc(n * sizeof(uint32_t));
        if (!table || !usable || !microvolt)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                table[i] = d->opps.opps[i].freq;
                microvolt[i] = d->opps.opps[i].microvolt;
        }

        r = df_stats_init(&d->stats, table, n, now_usec);
        if (r < 0)
                return r;
        r = df_stats_set_voltages(&d->stats, microvolt);
        if (r < 0) {
                df_stats_done(&d->stats);
                return r;
        }
        (void) df_stats_update(&d->stats, current, now_usec);

        d->table = TAKE_PTR(table);
        d->table_microvolt = TAKE_PTR(microvolt);
        d->n_table = n;
        d->usable = TAKE_PTR(usable);
        d->current = current;
        d->target = current;
        d->dirty = true;
        d->started = true;
        refresh(d);
        df_governor_start(&d->governor, current);
        return 0;
}

int df_device_set_governor(struct df_device *d, const struct df_governor_ops *ops) {
        assert(d);
        assert(ops);

        df_governor_init(&d->governor, ops);
        df_governor_start(&d->governor, d->current);
        d->sample_fresh = d->has_sample; /* new to this governor */
        return 0;
}

void df_device_set_admin_range(struct df_device *d, uint64_t min, uint64_t max) {
        assert(d);

        if (d->admin_min == min && d->admin_max == max)
                return;
        d->admin_min = min;
        d->admin_max = max;
        device_changed(d);
}

void df_device_set_outer_range(struct df_device *d, uint64_t min, uint64_t max) {
        assert(d);

        if (d->outer_min == min && d->outer_max == max)
                return;
        d->outer_min = min;
        d->outer_max = max;
        device_changed(d);
}

void df_device_set_sample(struct df_device *d, uint64_t busy, uint64_t total) {
        df_device_set_timed_sample(d, busy, total, 0, 0);
}

void df_device_set_timed_sample(
        struct df_device *d, uint64_t busy, uint64_t total, uint64_t duration_usec, uint64_t interval_usec) {
        assert(d);

        d->busy = busy;
        d->total = total;
        d->sample_usec = duration_usec;
        d->interval_usec = interval_usec;
        d->sample_current = d->current;
        d->has_sample = true;
        d->sample_fresh = true;
}

void df_device_carry_sample(struct df_device *d, const struct df_device *from) {
        assert(d);
        assert(from);

        if (!from->has_sample)
                return;
        df_device_set_timed_sample(d, from->busy, from->total, from->sample_usec, from->interval_usec);
        d->sample_current = from->sample_current;
}

void df_device_set_current(struct df_device *d, uint64_t freq) {
        assert(d);

        d->current = freq;
}

bool df_device_polls(const struct df_device *d) {
        assert(d);

        return d->mode == DF_MODE_GOVERN && d->governor.ops->polls;
}

bool df_device_has_latency_data(const struct df_device *d) {
        assert(d);

        for (size_t i = 0; i < d->opps.n; i++)
                if (d->opps.opps[i].latency_us > 0)
                        return true;
        return false;
}

/* Points that are enabled and, while latency requests constrain, meet the latency aggregate. */
static size_t collect_usable(const struct df_device *d, uint64_t *out) {
        bool constrained = df_qos_constrains(&d->qos, DF_QOS_LATENCY);
        uint64_t limit = df_qos_read_value(&d->qos, DF_QOS_LATENCY);
        const struct df_opp *best = NULL;
        size_t n = 0;

        for (size_t i = 0; i < d->opps.n; i++) {
                const struct df_opp *o = &d->opps.opps[i];
                if (!o->enabled)
                        continue;
                if (!constrained || o->latency_us <= limit)
                        out[n++] = o->freq;
                /* The lowest latency, ties to the highest frequency (ascending walk: <=). */
                if (!best || o->latency_us <= best->latency_us)
                        best = o;
        }
        if (n == 0 && best)
                out[n++] = best->freq;
        return n;
}

static size_t collect_enabled(const struct df_device *d, uint64_t *out) {
        size_t n = 0;

        for (size_t i = 0; i < d->opps.n; i++)
                if (d->opps.opps[i].enabled)
                        out[n++] = d->opps.opps[i].freq;
        return n;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi) {
        return MIN(MAX(v, lo), hi);
}

/* The ceiling of every bound but the points: administrator, QoS aggregate, other tools. */
static uint64_t bound_ceiling(const struct df_device *d, uint64_t qos_max) {
        uint64_t ceiling = MIN(d->admin_max, qos_max);

        if (d->mode == DF_MODE_CLAMP && !d->override_limits)
                ceiling = MIN(ceiling, d->outer_max);
        return ceiling;
}

/*
 * kernel: devfreq_get_freq_range(), current mainline "clamp" form: the ceiling wins. The range
 * within points lo..hi, the floor raised from `base` (the lowest usable point, which is lo
 * unless a ceiling below every usable point set the latency aggregate aside), with the QoS
 * aggregates qos_min and qos_max.
 */
static void range_of(
        const struct df_device *d, uint64_t lo, uint64_t hi, uint64_t base, uint64_t qos_min,
        uint64_t qos_max, uint64_t *ret_min, uint64_t *ret_max) {
        uint64_t floor = MAX(MAX(base, d->admin_min), qos_min);

        if (d->mode == DF_MODE_CLAMP && !d->override_limits)
                floor = MAX(floor, d->outer_min);
        *ret_max = clamp_u64(MIN(hi, bound_ceiling(d, qos_max)), lo, hi);
        *ret_min = clamp_u64(floor, lo, *ret_max);
}

/* Whether a usable point lacks among the enabled ones in min..max: the latency aggregate took it. */
static bool latency_takes(const struct df_device *d, uint64_t min, uint64_t max) {
        size_t enabled = 0, usable = 0;

        for (size_t i = 0; i < d->opps.n; i++)
                enabled += d->opps.opps[i].enabled && d->opps.opps[i].freq >= min &&
                        d->opps.opps[i].freq <= max;
        for (size_t i = 0; i < d->n_usable; i++)
                usable += d->usable[i] >= min && d->usable[i] <= max;
        return usable < enabled;
}

/* The points the range is drawn from: those the latency aggregate leaves usable (lat_*) and all
 * enabled ones (all_*), lowest and highest of each. */
struct spans {
        uint64_t lat_lo, lat_hi, all_lo, all_hi;
};

/*
 * The whole rule of refresh() for given aggregates: the range, and whether a ceiling below every
 * point the latency aggregate leaves usable set it aside (then the range is drawn from all enabled
 * points, its floor still raised to the latency's lowest point). `latency`: a latency aggregate
 * is held.
 */
static bool rule_range(
        const struct df_device *d, const struct spans *s, bool latency, uint64_t qos_min, uint64_t qos_max,
        uint64_t *ret_min, uint64_t *ret_max) {
        bool overridden = latency && bound_ceiling(d, qos_max) < s->lat_lo;

        if (!latency)
                range_of(d, s->all_lo, s->all_hi, s->all_lo, qos_min, qos_max, ret_min, ret_max);
        else if (overridden)
                range_of(d, s->all_lo, s->all_hi, s->lat_lo, qos_min, qos_max, ret_min, ret_max);
        else
                range_of(d, s->lat_lo, s->lat_hi, s->lat_lo, qos_min, qos_max, ret_min, ret_max);
        return overridden;
}

/*
 * Which QoS aggregates decide the range (DESIGN "Blame"): without the min aggregate the floor
 * would be lower, without the max aggregate the ceiling higher, without the latency aggregate the
 * range other or a point of it usable. Each "without" takes the whole rule (rule_range()): a
 * ceiling that sets the latency aggregate aside does so only while it is there.
 */
static void settle_binding(
        struct df_device *d, const struct spans *s, uint64_t qos_min, uint64_t qos_max, bool overridden) {
        bool latency = df_qos_constrains(&d->qos, DF_QOS_LATENCY);
        uint64_t min, max;

        (void) rule_range(d, s, latency, 0, qos_max, &min, &max);
        df_qos_binding_decides(&d->qos, DF_QOS_MIN_FREQUENCY, d->eff_min > min);
        (void) rule_range(d, s, latency, qos_min, UINT64_MAX, &min, &max);
        df_qos_binding_decides(&d->qos, DF_QOS_MAX_FREQUENCY, d->eff_max < max);
        (void) rule_range(d, s, false, qos_min, qos_max, &min, &max);
        df_qos_binding_decides(
                &d->qos, DF_QOS_LATENCY,
                latency &&
                        (d->eff_min != min || d->eff_max != max || (!overridden && latency_takes(d, min, max))));
}

static void refresh(struct df_device *d) {
        uint64_t qos_min, qos_max;
        struct spans s = { .all_lo = 0, .all_hi = UINT64_MAX };
        bool overridden;

        if (!d->dirty)
                return;

        qos_min = df_qos_read_value(&d->qos, DF_QOS_MIN_FREQUENCY);
        qos_max = df_qos_read_value(&d->qos, DF_QOS_MAX_FREQUENCY);
        d->n_usable = collect_usable(d, d->usable);
        assert(d->n_usable > 0); /* started with an enabled point, and the last one never goes */
        s.lat_lo = d->usable[0];
        s.lat_hi = d->usable[d->n_usable - 1];
        /* collect_usable() found an enabled point: so do the table's own lookups. */
        (void) df_opp_find_ceil(&d->opps, &s.all_lo);
        (void) df_opp_find_floor(&d->opps, &s.all_hi);
        overridden = rule_range(
                d, &s, df_qos_constrains(&d->qos, DF_QOS_LATENCY), qos_min, qos_max, &d->eff_min, &d->eff_max);
        /* A ceiling below every usable point wins over the latency aggregate. */
        if (overridden)
                d->n_usable = collect_enabled(d, d->usable);
        settle_binding(d, &s, qos_min, qos_max, overridden);
        d->dirty = false;
}

void df_device_get_range(struct df_device *d, uint64_t *ret_min, uint64_t *ret_max) {
        assert(d);
        assert(ret_min);
        assert(ret_max);

        refresh(d);
        *ret_min = d->eff_min;
        *ret_max = d->eff_max;
}

void df_device_get_usable(struct df_device *d, const uint64_t **ret, size_t *ret_n) {
        assert(d);
        assert(ret);
        assert(ret_n);

        refresh(d);
        *ret = d->usable;
        *ret_n = d->n_usable;
}

unsigned df_device_load(const struct df_device *d) {
        int load;

        assert(d);

        if (!d->has_sample)
                return 0;
        load = df_load_percent(d->busy, d->total);
        return load < 0 ? 0 : (unsigned) load;
}

/*
 * kernel: devfreq_recommended_opp() over the usable points, with one difference: a value
 * rounded up never lands above the effective maximum (the ceiling wins), it falls back down.
 */
static uint64_t snap(const struct df_device *d, uint64_t freq, unsigned flags) {
        int i;

        if (flags & DF_FLAG_LEAST_UPPER_BOUND) {
                i = df_freqs_floor(d->usable, d->n_usable, freq);
                if (i < 0)
                        i = df_freqs_ceil(d->usable, d->n_usable, freq);
        } else {
                i = df_freqs_ceil(d->usable, d->n_usable, freq);
                if (i < 0 || d->usable[i] > d->eff_max) {
                        int j = df_freqs_floor(d->usable, d->n_usable, freq);
                        if (j >= 0)
                                i = j;
                }
        }
        return d->usable[i < 0 ? 0 : i];
}

static uint64_t governor_value(struct df_device *d, bool *decided) {
        struct df_governor_input in = {
                .has_sample = d->has_sample,
                .busy = d->busy,
                .total = d->total,
                .fresh = d->sample_fresh,
                .duration_usec = d->sample_usec,
                .interval_usec = d->interval_usec,
                .sample_current = d->sample_current,
                .current = d->current,
                .min = d->eff_min,
                .max = d->eff_max,
                .points = d->usable,
                .n_points = d->n_usable,
                .table = d->table,
                .table_microvolt = d->table_microvolt,
                .n_table = d->n_table,
                .unit_hz = d->unit_hz,
        };

        /* A polling governor decides nothing before its first complete sample. */
        if (d->governor.ops->polls && !d->has_sample) {
                *decided = false;
                return d->current;
        }
        if (d->parent) {
                in.parent_current = d->parent->current;
                in.parent_table = d->parent->table;
                in.n_parent_table = d->parent->n_table;
        }
        *decided = true;
        d->sample_fresh = false;
        return df_governor_get_target(&d->governor, &in);
}

/* Clamp mode has something to say when a request that constrains (not one at its list's default),
 * a disabled point or a configured bound shapes the range; else the limits stay whatever other
 * writers (or nobody) left there. */
static bool clamp_has_say(const struct df_device *d) {
        if (d->override_limits || d->admin_min > 0 || d->admin_max != UINT64_MAX)
                return true;
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++)
                if (df_qos_constrains(&d->qos, (enum df_qos_type) t))
                        return true;
        return df_opp_count_enabled(&d->opps) < d->opps.n;
}

/* Nothing to say: no write at all, and limits held until now are given back. */
static int clamp_release(struct df_device *d, struct df_evaluation *ev) {
        int r;

        if (d->applied && !d->holding)
                return 0;
        r = d->backend && d->backend->release_range ? d->backend->release_range(d->backend_userdata) : 0;
        if (r < 0)
                return r;
        d->applied = true;
        d->holding = false;
        ev->wrote = r > 0;
        ev->changed = r > 0;
        return ev->changed;
}

static int evaluate_clamp(struct df_device *d, struct df_evaluation *ev) {
        int r;

        if (!clamp_has_say(d))
                return clamp_release(d, ev);
        ev->changed = !d->applied || !d->holding || d->eff_min != d->range_min || d->eff_max != d->range_max;
        if (!ev->changed)
                return 0;
        ev->wrote = true;
        r = d->backend && d->backend->set_range ?
                d->backend->set_range(d->backend_userdata, d->eff_min, d->eff_max) :
                0;
        if (r < 0) {
                ev->changed = false;
                return r;
        }
        d->range_min = d->eff_min;
        d->range_max = d->eff_max;
        d->holding = true;
        return 1;
}

/* kernel: update_devfreq() -> devfreq_update_target() -> devfreq_set_target() */
static int evaluate_govern(struct df_device *d, uint64_t now_usec, struct df_evaluation *ev) {
        unsigned flags = 0;
        uint64_t freq;
        int r;

        ev->governor = governor_value(d, &ev->decided);
        freq = ev->governor;
        if (freq < d->eff_min)
                freq = d->eff_min;
        else if (freq > d->eff_max) {
                freq = d->eff_max;
                flags |= DF_FLAG_LEAST_UPPER_BOUND;
        }
        ev->target = d->target = freq;
        ev->applied = snap(d, freq, flags);

        /* Unchanged: no write, but the time slice is closed as the kernel does. */
        if (d->applied && ev->applied == d->current) {
                (void) df_stats_update(&d->stats, d->current, now_usec);
                return 0;
        }

        ev->wrote = true;
        r = d->backend && d->backend->set_frequency ?
                d->backend->set_frequency(d->backend_userdata, ev->applied, d->current) :
                0;
        if (r < 0)
                return r; /* statistics and the frequency in force stay, as the kernel's */

        ev->changed = ev->applied != d->current;
        (void) df_stats_update(&d->stats, ev->applied, now_usec);
        d->current = ev->applied;
        return ev->changed;
}

int df_device_evaluate(struct df_device *d, uint64_t now_usec, struct df_evaluation *ret) {
        struct df_evaluation ev = {};
        int r;

        assert(d);

        if (!d->started)
                return -EINVAL;

        refresh(d);
        ev.min = d->eff_min;
        ev.max = d->eff_max;
        ev.applied = d->current;
        ev.target = d->target;

        r = d->mode == DF_MODE_CLAMP ? evaluate_clamp(d, &ev) : evaluate_govern(d, now_usec, &ev);
        if (r < 0) {
                ev.error = r;
                d->last_error = r;
                /* A failed write may have landed in part (one limit of a pinned frequency or of a
                 * range), so what the node holds is not known: the next decision is written even
                 * when it is the one in force, and in clamp mode with nothing to say the backend
                 * is asked to give the limits back even when the device held none. */
                d->applied = false;
        } else if (ev.wrote) {
                d->applied = true;
                d->last_error = 0;
        }
        if (ret)
                *ret = ev;
        return r;
}

void df_device_force_write(struct df_device *d) {
        assert(d);

        d->applied = false;
}

int df_device_set_opp_enabled(struct df_device *d, uint64_t freq, bool enabled) {
        assert(d);

        int i = df_opp_find(&d->opps, freq);

        if (i < 0)
                return i;
        /* The administrator's own flags, not availability: a cap takes points whatever they say,
         * and keeps the lowest they left enabled should it leave none (df_opp_set_cap()). */
        if (!enabled && !d->opps.opps[i].disabled && df_opp_count_admin_enabled(&d->opps) == 1)
                return -EBUSY;
        return df_opp_set_enabled(&d->opps, freq, enabled);
}

int df_device_set_thermal_cap(struct df_device *d, uint64_t cap) {
        assert(d);

        return df_opp_set_cap(&d->opps, cap) > 0;
}
