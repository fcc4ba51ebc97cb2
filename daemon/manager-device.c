/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One managed device: evaluation with foreign-writer and error handling, and the bus-facing
 * operations. Persisted choices are manager-state.c, change publication manager-publish.c. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "logging.h"
#include "manager-internal.h"
#include "strv.h"
#include "units.h"

void device_event(struct df_device *dev, void *userdata) {
        struct manager_device *d = userdata;

        d->pending = true;
}

struct manager_device *device_free(struct manager_device *d) {
        if (!d)
                return NULL;
        df_load_source_free(d->load);
        df_device_free(d->dev);
        df_node_free(d->node);
        df_spec_free(d->spec);
        strv_free(d->kernel_governors, d->n_kernel_governors);
        free(d->children);
        manager_blame_free(d);
        free(d->before_reload);
        df_stats_outside_done(&d->kernel_energy);
        free(d->bus.path);
        free(d->name);
        free(d);
        return NULL;
}

/* LastError, logged once per distinct text. */
void device_set_error(struct manager_device *d, int level, const char *fmt, ...) {
        char raw[sizeof(d->last_error)], text[sizeof(d->last_error)];
        va_list ap;

        assert(d);

        va_start(ap, fmt);
        vsnprintf(raw, sizeof(raw), fmt, ap);
        va_end(ap);
        /* It may name what a caller or another service gave: a property holds no control character. */
        df_escape_control(text, sizeof(text), raw);
        /* LastError changes (and is signalled) only when the text does. */
        if (!streq(text, d->last_error)) {
                memcpy(d->last_error, text, sizeof(text));
                d->error_serial++;
        }
        if (streq(d->logged_error, d->last_error)) {
                log_debug("%s: %s (again)", d->name, d->last_error);
                return;
        }
        snprintf(d->logged_error, sizeof(d->logged_error), "%s", d->last_error);
        log_full(level, "%s: %s", d->name, d->last_error);
}

/* An access failed: a device whose directory is gone is detached at the next safe point. */
static bool device_check_vanished(struct manager_device *d, int r) {
        if (r != -ENODEV && r != -ENOENT)
                return false;
        if (df_node_exists(d->node))
                return false;
        if (!d->vanished)
                log_warning("%s: %s is gone, detaching the device", d->name, d->node->path);
        d->vanished = true;
        return true;
}

int device_prepare(struct manager_device *d) {
        int r;

        r = df_node_prepare(d->node, d->dev->mode);
        if (r < 0) {
                if (!device_check_vanished(d, r))
                        device_set_error(d, LOG_ERR, "%s", d->node->error[0] ? d->node->error : strerror(-r));
                return r;
        }
        d->prepared = true;
        return 0;
}

int device_open_load(struct manager_device *d) {
        bool polls = df_device_polls(d->dev);
        int r;

        assert(d);

        if (!polls) {
                d->load = df_load_source_free(d->load);
                return 0;
        }
        if (d->load)
                return 0;
        if (d->spec->load == DF_LOAD_NONE)
                return -ENOMEDIUM;
        r = df_load_source_open(
                &d->manager->root, d->spec->load, d->spec->load_path, d->node->cpus, d->node->n_cpus, &d->load);
        if (r < 0)
                return r;
        return 0;
}

void device_recheck_kernel_governor(struct manager_device *d) {
        char seen[DF_ATTR_VALUE_MAX];

        if (d->node->drive == DF_DRIVE_USERSPACE &&
            df_node_check_kernel_governor(d->node, seen, sizeof(seen)) > 0) {
                device_set_error(
                        d, LOG_WARNING,
                        "the kernel governor was changed to %s by another writer; selected userspace again",
                        seen);
                df_device_force_write(d->dev);
        }
}

/* Another writer changed the applied-value attribute: log both values and overwrite. */
static void check_foreign(struct manager_device *d) {
        char a[DF_FREQ_STRING_MAX], b[DF_FREQ_STRING_MAX];
        uint64_t seen;
        int r;

        if (d->manager->dry_run || d->dev->mode != DF_MODE_GOVERN || d->node->drive != DF_DRIVE_USERSPACE)
                return;
        r = df_node_check_foreign(d->node, &seen);
        if (r < 0) {
                if (device_check_vanished(d, r))
                        return;
                device_set_error(
                        d, LOG_WARNING, "read %s/%s: %s", d->node->path,
                        d->node->kind == DF_KIND_CPUFREQ ? "scaling_setspeed" : "userspace/set_freq",
                        strerror(-r));
                /* An unreadable set_freq most likely went with a foreign switch of the kernel governor. */
                device_recheck_kernel_governor(d);
                return;
        }
        if (r == 0)
                return;
        device_set_error(
                d, LOG_WARNING, "%s was changed to %s by another writer (devfreqd wrote %s); overwriting",
                d->node->kind == DF_KIND_CPUFREQ ? "scaling_setspeed" : "userspace/set_freq",
                df_format_frequency(a, seen), df_format_frequency(b, d->node->written));
        df_device_force_write(d->dev);
}

/* Clamp mode: the limits other writers left are outer bounds of the range; a change of them by
 * another writer is adopted (and logged), and devfreqd's range written again inside them. */
static void check_limits(struct manager_device *d) {
        char note[DF_NODE_NOTE_MAX];
        uint64_t min, max;
        int r;

        if (d->dev->mode != DF_MODE_CLAMP || d->dev->override_limits || d->node->drive != DF_DRIVE_CLAMP)
                return;
        r = df_node_check_limits(d->node, note, sizeof(note));
        if (r < 0) {
                if (!device_check_vanished(d, r))
                        device_set_error(d, LOG_WARNING, "%s", d->node->error);
                return;
        }
        if (r == 2) {
                log_notice("%s: %s; keeping within it", d->name, note);
                df_device_force_write(d->dev);
        }
        df_node_found_range(d->node, &min, &max);
        df_device_set_outer_range(d->dev, min, max);
}

/* A read or write of the node failed (n->error names it): a node gone is detached, anything else is
 * in LastError and the log. */
static void access_failed(struct manager_device *d, int r) {
        if (device_check_vanished(d, r))
                return;
        d->access_failing = true;
        device_set_error(d, LOG_ERR, "%s", d->node->error[0] ? d->node->error : strerror(-r));
        device_recheck_kernel_governor(d);
}

void device_evaluate(struct manager_device *d, bool full_publish) {
        struct df_evaluation ev;
        int r;

        assert(d);

        d->pending = false;
        /* Not activated yet (a passive child while its parent is activated first): no backend, no
         * first-write hook, no dry run yet; its own activation evaluates it. */
        if (d->vanished || d->offline || !d->activated)
                return;
        if (!d->prepared && device_prepare(d) < 0) {
                device_publish(d, full_publish);
                return;
        }
        check_foreign(d);
        check_limits(d);
        if (d->vanished)
                return;

        r = df_device_evaluate(d->dev, now_usec(), &ev);
        if (r < 0)
                access_failed(d, r);
        else if (ev.wrote && d->logged_error[0]) {
                /* A write after a failure; after another writer's change it is just the overwrite. */
                if (d->access_failing)
                        log_info("%s: writing works again", d->name);
                d->logged_error[0] = '\0';
                d->access_failing = false;
        }
        if (r > 0 && d->dev->mode == DF_MODE_GOVERN) {
                char f[DF_FREQ_STRING_MAX];
                log_debug("%s: %s", d->name, df_format_frequency(f, ev.applied));
        }
        if (ev.changed)
                for (size_t i = 0; i < d->n_children; i++)
                        device_evaluate(d->children[i], false);
        device_publish(d, full_publish);
}

/* A poll tick: take a sample; a dropped sample keeps the frequency and decides nothing. */
void device_poll(struct manager_device *d) {
        uint64_t busy, total, duration;
        int r;

        assert(d);

        if (d->vanished || d->offline || !d->load)
                return;
        r = df_load_source_sample(d->load, now_usec(), &busy, &total, &duration);
        if (r < 0) {
                if (!device_check_vanished(d, r))
                        device_set_error(
                                d, LOG_WARNING, "reading the load (%s%s%s) failed: %s",
                                df_load_kind_to_string(d->spec->load), d->spec->load_path ? ":" : "",
                                strempty(d->spec->load_path), strerror(-r));
                return;
        }
        if (r == 0) {
                /* Once per run of dropped samples, not once per tick. */
                if (!d->dropping)
                        log_debug(
                                "%s: no complete load sample (first reading, idle counters, or counters "
                                "going backwards); keeping the frequency",
                                d->name);
                d->dropping = true;
                /* The reading after a sleep gave nothing (counters reset over it): the next sample
                 * starts after the sleep and counts. */
                d->skip_sample = false;
                return;
        }
        d->dropping = false;
        if (d->skip_sample) {
                d->skip_sample = false; /* it spans a sleep: the next one is the first to count */
                return;
        }
        df_device_set_timed_sample(d->dev, busy, total, duration, d->spec->polling_usec);
        device_evaluate(d, false);
}

/* Re-evaluate at once if an event asked for it (the bus reply waits for this). */
static void flush(struct manager_device *d) {
        if (d->pending)
                device_evaluate(d, true);
        else
                device_publish(d, true);
        manager_detach_vanished_later(d->manager);
}

int manager_device_add_request(
        struct manager_device *d, struct df_qos_request *req, enum df_qos_type type, uint64_t value) {
        int r = df_qos_add_request(&d->dev->qos, req, type, value);

        assert(d);

        if (r < 0)
                return r;
        flush(d);
        return 0;
}

int manager_device_update_request(struct manager_device *d, struct df_qos_request *req, uint64_t value) {
        int r = df_qos_update_request(req, value);

        assert(d);

        if (r < 0)
                return r;
        flush(d);
        return 0;
}

int manager_device_remove_request(struct manager_device *d, struct df_qos_request *req) {
        int r = df_qos_remove_request(req);

        assert(d);

        if (r < 0)
                return r;
        flush(d);
        return 0;
}

static void persist(struct manager_device *d, const char *key, const char *value, const char *config) {
        int r = state_set(d->manager->state, d->name, key, value, config);

        if (r < 0)
                log_warning_errno(r, "%s: cannot remember the choice %s=%s: %m", d->name, key, value);
}

const char *manager_device_governor_refusal(
        const struct manager_device *d, const struct df_governor_ops *ops, int r, char *buf, size_t size) {
        assert(d);
        assert(ops);
        assert(buf);

        if (r == -ENOMEDIUM)
                snprintf(
                        buf, size, "Governor %s needs a load source; %s has none (configure load =)",
                        ops->name, d->name);
        else if (r == -ENOLINK && d->spec->parent)
                snprintf(buf, size, "Governor passive follows %s, which is not attached now", d->spec->parent);
        else if (r == -ENOLINK)
                snprintf(
                        buf, size, "Governor passive follows a parent device; configure parent = for %s",
                        d->name);
        else
                return NULL;
        return buf;
}

int device_switch_governor(struct manager_device *d, const struct df_governor_ops *ops) {
        const struct df_governor_ops *old = d->dev->governor.ops;
        int r;

        assert(d);

        r = df_spec_check_governor(d->spec, ops);
        if (r < 0)
                return r;
        if (ops == &df_governor_passive && !d->dev->parent)
                return -ENOLINK;
        r = df_device_set_governor(d->dev, ops);
        if (r < 0)
                return r;
        r = device_open_load(d);
        if (r < 0) {
                /* A file of the configuration gone since it was checked: the device's failure, not the
                 * caller's, so in LastError and the log like a failed write. */
                device_set_error(
                        d, LOG_WARNING, "governor %s: cannot open the load source %s%s%s: %s", ops->name,
                        df_load_kind_to_string(d->spec->load), d->spec->load_path ? ":" : "",
                        strempty(d->spec->load_path), strerror(-r));
                (void) df_device_set_governor(d->dev, old);
                (void) device_open_load(d);
                device_publish(d, false);
                return r;
        }
        manager_regroup(d->manager);
        return 0;
}

/* Clamp mode: the kernel's governor, checked against the node's list, written at once. */
int manager_device_set_governor_kernel(struct manager_device *d, const char *name) {
        char current[DF_ATTR_VALUE_MAX];
        int r;

        assert(d);

        if (df_node_kernel_governor(d->node, current, sizeof(current)) >= 0 && streq(current, name))
                return 0;
        r = df_node_offers_governor(d->node, name);
        if (r == 0)
                return -ENOPKG; /* not offered: nothing written */
        if (r < 0) {
                /* The list could not be read (n->error says which): the device's failure, not a
                 * governor the kernel lacks. */
                access_failed(d, r);
                device_publish(d, false);
                manager_detach_vanished_later(d->manager);
                return r;
        }
        r = df_node_set_kernel_governor(d->node, name);
        if (r < 0) {
                /* The write itself failed: like every failed write, in LastError and the log. */
                access_failed(d, r);
                device_publish(d, false);
                manager_detach_vanished_later(d->manager);
                return r;
        }
        log_info("%s: kernel governor set to %s", d->name, name);
        return 1;
}

int manager_device_set_governor(struct manager_device *d, const char *name) {
        char config[DF_ATTR_VALUE_MAX + 16];

        assert(d);

        bool override = manager_device_profile_sets(d, "governor"); /* in memory only */
        int r;

        df_spec_config_governor(d->spec, config, sizeof(config));
        if (d->dev->mode == DF_MODE_CLAMP) {
                r = manager_device_set_governor_kernel(d, name);
                if (r <= 0)
                        return r;
        } else {
                const struct df_governor_ops *ops = df_governor_find(name);

                if (!ops)
                        return -EINVAL;
                if (ops == d->dev->governor.ops)
                        return 0;
                r = device_switch_governor(d, ops);
                if (r < 0)
                        return r;
                log_info("%s: governor set to %s%s", d->name, name, override ? " (over the profile)" : "");
                if (!override) {
                        (void) state_forget(d->manager->state, d->name, "tunable:");
                        (void) state_forget(d->manager->state, d->name, "frequency");
                }
                device_evaluate(d, true);
        }
        if (!override)
                persist(d, "governor", name, config);
        device_publish(d, true);
        manager_detach_vanished_later(d->manager);
        return 0;
}

int manager_device_set_frequency(struct manager_device *d, uint64_t freq) {
        char value[32], config[32];

        assert(d);

        if (d->dev->mode != DF_MODE_GOVERN || d->dev->governor.ops != &df_governor_userspace)
                return -EOPNOTSUPP;
        df_governor_userspace_set(&d->dev->governor, freq);
        snprintf(value, sizeof(value), "%" PRIu64, freq);
        df_spec_config_initial(d->spec, config, sizeof(config));
        persist(d, "frequency", value, config);
        device_evaluate(d, true);
        manager_detach_vanished_later(d->manager);
        return 0;
}

int manager_device_set_tunable(struct manager_device *d, const char *name, uint32_t value) {
        char key[96], v[16], buf[16];
        bool override;
        int r;

        assert(d);

        if (d->dev->mode != DF_MODE_GOVERN)
                return -EOPNOTSUPP;
        override = manager_device_profile_sets(d, name);
        r = df_governor_set_tunable(&d->dev->governor, name, value);
        if (r < 0)
                return r;
        snprintf(key, sizeof(key), "tunable:%s", name);
        snprintf(v, sizeof(v), "%" PRIu32, value);
        df_spec_config_tunable(d->spec, name, buf, sizeof(buf));
        if (!override)
                persist(d, key, v, buf);
        d->pending = true;
        flush(d);
        return 0;
}

int manager_device_set_operating_point(struct manager_device *d, uint64_t freq, bool enabled) {
        char key[48];
        int r;

        assert(d);

        r = df_device_set_opp_enabled(d->dev, freq, enabled);
        if (r < 0)
                return r;
        snprintf(key, sizeof(key), "opp:%" PRIu64, freq);
        persist(d, key, enabled ? "enabled" : "disabled", df_spec_config_point(d->spec, freq));
        flush(d);
        return 0;
}

int manager_device_get_statistics(
        struct manager_device *d, uint64_t **ret_freqs, uint64_t **ret_time_ms, uint64_t **ret_trans,
        size_t *ret_n, uint64_t *ret_total) {
        const struct df_stats *s = &d->dev->stats;

        assert(d);
        assert(ret_freqs);
        assert(ret_time_ms);
        assert(ret_trans);

        _cleanup_free_ uint64_t *freqs = NULL, *trans = NULL, *ms = NULL;
        int r;

        if (d->dev->mode == DF_MODE_CLAMP)
                return df_node_read_kernel_stats(d->node, ret_freqs, ret_time_ms, ret_trans, ret_n, ret_total);

        freqs = malloc(s->n * sizeof(uint64_t));
        trans = malloc(s->n * s->n * sizeof(uint64_t));
        if (!freqs || !trans)
                return -ENOMEM;
        r = df_stats_time_ms(s, now_usec(), &ms);
        if (r < 0)
                return r;
        memcpy(freqs, s->freqs, s->n * sizeof(uint64_t));
        memcpy(trans, s->trans, s->n * s->n * sizeof(uint64_t));
        *ret_freqs = TAKE_PTR(freqs);
        *ret_time_ms = TAKE_PTR(ms);
        *ret_trans = TAKE_PTR(trans);
        *ret_n = s->n;
        *ret_total = s->total;
        return 0;
}

double manager_device_energy(struct manager_device *d) {
        const struct df_stats *s = &d->dev->stats;
        _cleanup_free_ uint64_t *freqs = NULL, *ms = NULL, *trans = NULL;
        uint64_t total;
        size_t n;

        assert(d);

        if (d->dev->mode != DF_MODE_CLAMP)
                return df_stats_energy(s, now_usec());
        /* The kernel keeps the time in state: each reading charges what it counted since the last
         * one with the voltages in force. */
        if (manager_device_get_statistics(d, &freqs, &ms, &trans, &n, &total) >= 0 &&
            df_stats_outside_update(&d->kernel_energy, s, freqs, ms, n, total) < 0)
                log_oom();
        return d->kernel_energy.energy;
}

void manager_device_continue_energy(struct manager_device *d, double energy) {
        _cleanup_free_ uint64_t *freqs = NULL, *ms = NULL, *trans = NULL;
        uint64_t total;
        size_t n = 0;

        assert(d);

        if (d->dev->mode != DF_MODE_CLAMP) {
                d->dev->stats.energy = energy; /* charged up to now: df_stats_carry() made it so */
                return;
        }
        if (manager_device_get_statistics(d, &freqs, &ms, &trans, &n, &total) < 0) {
                /* Taken whole at the next reading, the kernel's count would charge again the time
                 * the other mode charged already. */
                df_stats_outside_resume(&d->kernel_energy, energy);
                return;
        }
        df_stats_outside_done(&d->kernel_energy);
        if (df_stats_outside_start(&d->kernel_energy, energy, freqs, ms, n, total) < 0)
                log_oom();
}

int manager_device_reset_statistics(struct manager_device *d) {
        int r;

        assert(d);

        if (d->dev->mode != DF_MODE_CLAMP) {
                df_stats_reset(&d->dev->stats, now_usec());
                return 0;
        }
        /* A failed reset is a failed write like any other: LastError and the log say so. */
        r = df_node_reset_kernel_stats(d->node);
        if (r >= 0)
                df_stats_outside_done(&d->kernel_energy);
        if (r < 0) {
                access_failed(d, r);
                device_publish(d, false);
                manager_detach_vanished_later(d->manager);
        }
        return r;
}

uint64_t manager_device_current_frequency(struct manager_device *d) {
        uint64_t f;

        assert(d);

        if (d->dev->mode == DF_MODE_GOVERN)
                return df_node_running(d->node, d->dev->current);
        if (df_node_read_current(d->node, &f) < 0)
                return d->dev->current;
        return f;
}

const char *manager_device_governor(const struct manager_device *d) {
        assert(d);

        if (d->dev->mode == DF_MODE_GOVERN)
                return d->dev->governor.ops->name;
        return d->published.kernel_governor;
}

int manager_device_available_governors(struct manager_device *d, char ***ret, size_t *ret_n) {
        char **v = NULL;
        size_t n = 0;

        assert(d);
        assert(ret);

        bool clamp = d->dev->mode == DF_MODE_CLAMP;
        /* A node gone (unplugged, its module unloaded, no uevent heard) offers none. */
        size_t count = !clamp ? df_governors_count : d->vanished ? 0 : d->n_kernel_governors;

        for (size_t i = 0; i < count; i++)
                if (strv_push(&v, &n, clamp ? d->kernel_governors[i] : df_governors[i]->name) < 0) {
                        strv_free(v, n);
                        return -ENOMEM;
                }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* The device's profile decision (made by manager-profile.c) against a key. */
bool manager_device_profile_sets(const struct manager_device *d, const char *key) {
        assert(d);

        if (streq(key, "governor"))
                return d->profile.governor_set;
        return df_profile_sets_tunable(&d->profile, d->dev->governor.ops, key);
}
