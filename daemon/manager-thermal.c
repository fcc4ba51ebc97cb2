/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thermal rules at run time: each rule reads its zone on the timer of the polling group of its
 * `poll` interval, moves between released and tripped (lib/thermal.c), and each device's lowest cap
 * of its tripped rules disables its points above it (df_device_set_thermal_cap()), evaluated again
 * like any change of its points. Caps are never persisted: a start reads the zones afresh. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "units.h"

static struct thermal_rule *rule_free(struct thermal_rule *r) {
        if (!r)
                return NULL;
        df_thermal_zone_close(&r->zone);
        free(r);
        return NULL;
}

void manager_thermal_free(struct manager *m) {
        for (size_t i = 0; i < m->n_rules; i++)
                rule_free(m->rules[i]);
        free(m->rules);
        m->rules = NULL;
        m->n_rules = 0;
}

uint64_t manager_thermal_cap_of(const struct manager *m, const char *device) {
        uint64_t cap = 0;

        assert(m);

        for (size_t i = 0; i < m->n_rules; i++)
                cap = df_thermal_cap_fold(cap, m->rules[i]->config, &m->rules[i]->state, device);
        return cap;
}

/* The cap on a device about to be activated: its first evaluation already obeys it. */
void manager_thermal_cap_device(struct manager *m, struct manager_device *d) {
        uint64_t cap;

        assert(m);
        assert(d);

        cap = manager_thermal_cap_of(m, d->name);
        (void) df_device_set_thermal_cap(d->dev, cap);
        manager_blame_thermal(m, d, cap);
        d->pending = false; /* the activation evaluates */
}

/* Every device's cap after a rule tripped or released; a device whose points changed is evaluated.
 * Blame hears every device: another rule may now hold the same cap. */
static void apply_caps(struct manager *m) {
        for (size_t i = 0; i < m->n_devices; i++) {
                struct manager_device *d = m->devices[i];
                uint64_t cap = manager_thermal_cap_of(m, d->name);

                manager_blame_thermal(m, d, cap);
                if (cap == d->dev->opps.cap)
                        continue;
                (void) df_device_set_thermal_cap(d->dev, cap);
                device_evaluate(d, true);
        }
        manager_detach_vanished_later(m);
        manager_thermal_changed(m);
}

void manager_thermal_changed(struct manager *m) {
        assert(m);

        if (m->listener && m->listener->thermal_changed)
                m->listener->thermal_changed(m, m->listener_userdata);
}

/* The zone, found again if it went (a module reload gives it a new number). */
static int read_zone(struct manager *m, struct thermal_rule *r, int64_t *ret) {
        const struct df_config_thermal *t = r->config;
        int k;

        if (r->zone.fd < 0) {
                k = df_thermal_zone_open(&m->root, t->zone, &r->zone);
                if (k < 0) {
                        if (!r->zone_missing)
                                log_info(
                                        "thermal %s: no zone named or of type %s (yet): %s; looking for it at "
                                        "every poll",
                                        t->name, t->zone, strerror(-k));
                        r->zone_missing = true;
                        return k;
                }
                if (r->zone_missing)
                        log_info("thermal %s: %s is %s", t->name, t->zone, r->zone.name);
                r->zone_missing = false;
        }
        k = df_thermal_zone_read(&r->zone, ret);
        if (k == -ENODEV || k == -ENOENT)
                df_thermal_zone_close(&r->zone);
        return k;
}

/* The devices a stale release uncapped say why in LastError (the log has the rule's own line). */
static void stale_errors(struct manager *m, const struct df_config_thermal *t) {
        char d[DF_DURATION_STRING_MAX];

        for (size_t i = 0; i < m->n_devices; i++)
                if (df_config_thermal_covers(t, m->devices[i]->name))
                        device_set_error(
                                m->devices[i], LOG_DEBUG,
                                "thermal %s: no reading of %s for %s; its cap is released", t->name, t->zone,
                                df_format_duration(d, t->stale_usec));
}

static void log_events(struct manager *m, struct thermal_rule *r, unsigned ev, int k, int64_t temp) {
        const struct df_config_thermal *t = r->config;
        char a[DF_TEMPERATURE_STRING_MAX], b[DF_TEMPERATURE_STRING_MAX], f[DF_FREQ_STRING_MAX],
                d[DF_DURATION_STRING_MAX];

        if ((ev & DF_THERMAL_FAILING) && !r->zone_missing)
                log_warning(
                        "thermal %s: %s: %s; keeping the state for up to %s", t->name, t->zone,
                        k < 0 ? strerror(-k) : "an impossible reading", df_format_duration(d, t->stale_usec));
        if (ev & DF_THERMAL_RESUMED)
                log_info("thermal %s: %s reads again", t->name, t->zone);
        if (ev & DF_THERMAL_STALE)
                log_warning(
                        "thermal %s: no reading of %s for %s: %s", t->name, t->zone,
                        df_format_duration(d, t->stale_usec),
                        ev & DF_THERMAL_RELEASED ? "its cap is released" : "nothing to release");
        if (ev & DF_THERMAL_TRIPPED)
                log_notice(
                        "thermal %s: %s at %s (trip %s): points above %s disabled", t->name, t->zone,
                        df_format_temperature(a, temp), df_format_temperature(b, t->trip),
                        df_format_frequency(f, t->max_freq));
        if ((ev & DF_THERMAL_RELEASED) && !(ev & DF_THERMAL_STALE))
                log_notice(
                        "thermal %s: %s at %s (clear %s): cap released", t->name, t->zone,
                        df_format_temperature(a, temp), df_format_temperature(b, t->clear));
        if ((ev & DF_THERMAL_STALE) && (ev & DF_THERMAL_RELEASED))
                stale_errors(m, t);
}

/* One reading of one rule: true when it tripped or released. */
static bool poll_rule(struct manager *m, struct thermal_rule *r) {
        int64_t temp = 0;
        int k = read_zone(m, r, &temp);
        unsigned ev = df_thermal_update(r->config, &r->state, k, temp, now_usec());

        log_events(m, r, ev, k, temp);
        return ev & (DF_THERMAL_TRIPPED | DF_THERMAL_RELEASED);
}

void manager_thermal_poll(struct manager *m, struct thermal_rule **rules, size_t n) {
        bool changed = false;

        assert(m);

        for (size_t i = 0; i < n; i++)
                changed = poll_rule(m, rules[i]) || changed;
        if (changed)
                apply_caps(m);
}

static struct thermal_rule *rule_new(struct manager *m, const struct df_config_thermal *t) {
        struct thermal_rule *r = calloc(1, sizeof(*r));

        if (!r)
                return NULL;
        r->manager = m;
        r->config = t;
        r->zone = (struct df_thermal_zone) DF_THERMAL_ZONE_INIT;
        df_thermal_start(&r->state, now_usec());
        return r;
}

static bool same_rule(const struct df_config_thermal *a, const struct df_config_thermal *b) {
        if (!streq(a->name, b->name) || !streq(a->zone, b->zone) || a->all_devices != b->all_devices ||
            a->n_devices != b->n_devices || a->trip != b->trip || a->clear != b->clear ||
            a->max_freq != b->max_freq || a->poll_usec != b->poll_usec || a->stale_usec != b->stale_usec)
                return false;
        for (size_t i = 0; i < a->n_devices; i++)
                if (!streq(a->devices[i], b->devices[i]))
                        return false;
        return true;
}

/* The running rule named `name`, taken out of m->rules; NULL when there is none. */
static struct thermal_rule *take_rule(struct manager *m, const char *name) {
        for (size_t k = 0; k < m->n_rules; k++)
                if (m->rules[k] && streq(m->rules[k]->config->name, name)) {
                        struct thermal_rule *r = m->rules[k];
                        m->rules[k] = NULL;
                        return r;
                }
        return NULL;
}

/*
 * Rule `old` changed by a reload into `t` (the same name). Reading the same sensor it keeps its
 * state (tripped or released, and how long the zone has failed): its next reading is judged against
 * the new trip and clear, and between them the state holds (hysteresis), so an edit of the cap, the
 * devices or the poll does not release a hot zone. The same sensor is the same zone key, or one that
 * finds the zone `old` reads. Another zone's state says nothing of this one: the rule starts
 * released, as at start, and its first reading decides. Consumes `old`; NULL when out of memory.
 */
static struct thermal_rule *
rule_changed(struct manager *m, struct thermal_rule *old, const struct df_config_thermal *t) {
        struct thermal_rule *r;

        if (streq(old->config->zone, t->zone)) {
                log_info("thermal %s: changed", t->name);
                old->config = t;
                return old;
        }
        r = rule_new(m, t);
        if (r && old->zone.name && df_thermal_zone_open(&m->root, t->zone, &r->zone) >= 0 &&
            streq(r->zone.name, old->zone.name)) {
                log_info("thermal %s: changed; %s is still %s: its state stays", t->name, t->zone, r->zone.name);
                r->state = old->state;
        } else
                log_info("thermal %s: changed, to another zone: starts released", t->name);
        rule_free(old);
        return r;
}

/*
 * The rules of configuration `c` (in force from now on): a rule unchanged keeps its state and zone,
 * a changed one keeps its state too when it reads the same sensor (rule_changed()), and is read at
 * once, as a new one is (released until then); one that is gone releases its caps. The caller
 * activates or evaluates the devices afterwards, which applies the caps. Returns whether the rules
 * changed: one was added, changed or removed.
 */
bool manager_thermal_load(struct manager *m, const struct df_config *c) {
        struct thermal_rule **v = calloc(c->n_thermals ?: 1, sizeof(*v));
        bool changed = false;

        assert(m);

        if (!v) {
                log_oom();
                return false;
        }
        for (size_t i = 0; i < c->n_thermals; i++) {
                const struct df_config_thermal *t = &c->thermals[i];
                struct thermal_rule *old = take_rule(m, t->name);

                if (old && same_rule(old->config, t)) {
                        old->config = t;
                        v[i] = old;
                        continue;
                }
                changed = true;
                v[i] = old ? rule_changed(m, old, t) : rule_new(m, t);
                if (v[i])
                        (void) poll_rule(m, v[i]);
                else
                        log_oom();
        }
        for (size_t k = 0; k < m->n_rules; k++)
                if (m->rules[k]) {
                        changed = true;
                        log_info("thermal %s: removed", m->rules[k]->config->name);
                        rule_free(m->rules[k]);
                }
        free(m->rules);
        m->rules = v;
        m->n_rules = 0;
        /* A rule that could not be allocated does not run (logged above). */
        for (size_t i = 0; i < c->n_thermals; i++)
                if (v[i])
                        v[m->n_rules++] = v[i];
        return changed;
}
