/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The device list's members: attaching (originals recorded with one write, then each device's
 * first writes, persisted choices and evaluation, parents before children), a node found at a
 * path attached on its own (hotplug), and vanished devices detached and their originals dealt
 * with. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "strv.h"

/* Parents before children, and the children lists, over the final device list. */
void link_passive(struct manager *m) {
        assert(m);

        for (size_t i = 0; i < m->n_devices; i++) {
                free(m->devices[i]->children);
                m->devices[i]->children = NULL;
                m->devices[i]->n_children = 0;
                m->devices[i]->dev->parent = NULL;
        }
        for (size_t i = 0; i < m->n_devices; i++) {
                struct manager_device *d = m->devices[i], *p, **slot;

                if (!d->spec->parent)
                        continue;
                p = manager_find_device(m, d->spec->parent);
                if (!p || p == d)
                        continue;
                slot = GROW(p->children, p->n_children);
                if (!slot) {
                        log_oom();
                        continue;
                }
                *slot = d;
                p->n_children++;
                d->dev->parent = p->dev;
        }
}

/* The originals of every node about to be attached, saved with one write (and one fsync), so
 * attaching a thousand devices does not rewrite the file a thousand times. */
void record_originals(struct manager *m, struct manager_device **v, size_t n) {
        size_t before = m->originals->n, added = 0;

        assert(m);

        if (m->dry_run)
                return;
        for (size_t i = 0; i < n; i++) {
                struct df_originals o;

                /* A clamp node that shares its limits is written only once there is something to
                 * say, maybe never: its originals wait for that first write. */
                if (v[i]->dev->mode == DF_MODE_CLAMP && !v[i]->dev->override_limits &&
                    !v[i]->spec->kernel_governor)
                        continue;
                if (originals_get(m->originals, v[i]->node->path) || df_node_read_originals(v[i]->node, &o) < 0)
                        continue; /* the first-write hook tries again and reports */
                if (originals_record(m->originals, v[i]->node->path, &o) > 0)
                        added++;
        }
        /* Unsaved, they would protect nothing: forget them, and the first-write hook refuses to
         * write any node whose originals it cannot save. */
        if (added > 0 && originals_save(m->originals) < 0)
                originals_truncate(m->originals, before);
}

static int node_first_write(struct df_node *n, void *userdata) {
        struct manager_device *d = userdata;
        struct df_originals o;
        int r;

        /* A file left by a crashed run is trusted over what that run left in sysfs. */
        if (originals_get(d->manager->originals, n->path))
                return 0;
        r = df_node_read_originals(n, &o);
        if (r < 0)
                return log_error_errno(r, "%s: cannot read the original settings of %s: %m", d->name, n->path);
        return originals_add(d->manager->originals, n->path, &o);
}

/* A record still owed (left by a crashed run, or dropped with a device whose restore failed) is
 * tried again when the node attaches, before anything reads the old limits from sysfs as the
 * ones found there. */
static void restore_owed(struct manager *m, struct manager_device *d) {
        struct originals_entry *e = originals_entry(m->originals, d->node->path);
        int r;

        if (m->dry_run || !e || !e->owed)
                return;
        r = restore_entry(&m->root, e, false);
        if (!restore_entry_done(r))
                return;
        if (r > 0)
                log_info("%s: original settings restored (%s)", d->name, OWED_SINCE);
        (void) originals_remove(m->originals, d->node->path);
}

size_t manager_restore_owed(struct manager *m, bool managed_too, const char *why) {
        bool changed = false;
        size_t owed = 0;

        assert(m);

        for (size_t i = 0; !m->dry_run && i < m->originals->n;) {
                struct originals_entry *e = &m->originals->entries[i];
                int r;

                if (!managed_too && manager_find_path(m, e->path)) {
                        i++;
                        continue;
                }
                r = restore_entry(&m->root, e, false);
                if (!restore_entry_done(r)) {
                        owed += r < 0; /* an absent node (0) may come back; nothing is held there */
                        i++;
                        continue;
                }
                if (r > 0)
                        log_info("%s: original settings restored (%s)", e->path, why);
                (void) originals_forget(m->originals, e->path);
                changed = true;
        }
        if (changed)
                (void) originals_save(m->originals);
        return owed;
}

/* A device a reload kept goes on where it was when, with the persisted choices and the profile
 * applied, it runs the governor it ran before with the same tunables (a reload is an event): its
 * state, and a sample it already decided on is not decided on again (conservative would take
 * another step); under userspace that keeps the frequency set before the reload. */
static void carry_governor(struct manager_device *d) {
        struct df_governor *g = d->before_reload;

        if (g && g->ops == d->dev->governor.ops &&
            memcmp(g->tunables, d->dev->governor.tunables, sizeof(g->tunables)) == 0) {
                d->dev->governor.state = g->state;
                d->dev->sample_fresh = d->before_reload_fresh;
        }
        free(g);
        d->before_reload = NULL;
}

/* Phase two of attaching: the first writes (originals recorded just before), state, evaluation. */
static int device_activate(struct manager_device *d) {
        bool prepared, profile_governor;

        assert(d);

        restore_owed(d->manager, d);
        d->node->first_write = node_first_write;
        d->node->first_write_userdata = d;
        d->node->dry_run = d->manager->dry_run;
        df_device_set_backend(d->dev, &df_node_backend_ops, d->node);
        df_device_set_event_handler(d->dev, device_event, d);
        prepared = device_prepare(d) >= 0;
        /* In clamp mode one kernel governor is written: the profile's (kept over a reload), else a
         * saved one, else the configured one. */
        profile_governor = manager_profile_takes_kernel_governor(d->manager, d);

        if (prepared && d->dev->mode == DF_MODE_CLAMP && d->spec->kernel_governor && !profile_governor &&
            !device_saved_governor_applies(d)) {
                int r = manager_device_set_governor_kernel(d, d->spec->kernel_governor);
                if (r < 0)
                        device_set_error(d, LOG_ERR, "%s", d->node->error[0] ? d->node->error : strerror(-r));
        }
        (void) device_apply_state(d, !profile_governor);
        manager_profile_settle(d->manager, d); /* before its first evaluation */
        carry_governor(d);
        (void) device_open_load(d);
        d->activated = true;
        device_evaluate(d, true);
        /* What it applies now may not be what its children followed, even when its first write
         * changed nothing (a parent attached again after it vanished): they follow it now. */
        for (size_t i = 0; i < d->n_children; i++)
                device_evaluate(d->children[i], false);
        return 0;
}

/* Whether d's parent is among fresh[] and not activated yet. */
static bool parent_pending(
        struct manager *m, const struct manager_device *d, struct manager_device **fresh, const bool *done,
        size_t n_fresh) {
        const struct manager_device *p = d->spec->parent ? manager_find_device(m, d->spec->parent) : NULL;

        for (size_t j = 0; p && p != d && j < n_fresh; j++)
                if (fresh[j] == p)
                        return !done[j];
        return false;
}

void activate_all(struct manager *m, struct manager_device **fresh, size_t n_fresh) {
        bool *done = calloc(n_fresh, sizeof(bool)), stuck = false;
        size_t left = n_fresh;

        assert(m);

        if (!done) {
                log_oom();
                return;
        }
        record_originals(m, fresh, n_fresh);
        /* A device a reload kept has a new df_device, with no backend until its activation. */
        for (size_t i = 0; i < n_fresh; i++)
                fresh[i]->activated = false;
        /* Parents first, whatever the names' order: a passive child's first write is what its parent
         * applied. A pass that activates nothing (a cycle, which validation refuses) lets the rest
         * go in order. */
        while (left > 0) {
                size_t before = left;
                for (size_t i = 0; i < n_fresh; i++) {
                        if (done[i] || (!stuck && parent_pending(m, fresh[i], fresh, done, n_fresh)))
                                continue;
                        manager_thermal_cap_device(m, fresh[i]);
                        (void) device_activate(fresh[i]);
                        done[i] = true;
                        left--;
                }
                stuck = left == before;
        }
        free(done);
}

/* Written back and forgotten; `save`: the file is saved now, else the caller saves once for many. */
int restore_device(struct manager *m, struct manager_device *d, bool save) {
        struct originals_entry *e;
        const struct df_originals *o;
        struct df_originals polite;
        int r;

        if (m->dry_run)
                return 0;
        e = originals_entry(m->originals, d->node->path);
        if (!e)
                return 0;
        o = &e->values;
        /* Sharing the limits, the ones to leave are those found last: another writer's since. Not
         * for a record a crashed run left: what was found then is that run's own limits. */
        if (d->dev->mode == DF_MODE_CLAMP && !d->dev->override_limits && d->node->drive == DF_DRIVE_CLAMP &&
            !e->owed && df_node_check_limits(d->node, NULL, 0) >= 0) {
                polite = *o;
                memcpy(polite.min, d->node->found_min, sizeof(polite.min));
                memcpy(polite.max, d->node->found_max, sizeof(polite.max));
                o = &polite;
        }
        r = df_node_restore(d->node, o);
        if (r == -EBADMSG)
                log_warning("%s: ignoring its record of original settings: %s", d->name, d->node->error);
        else if (r < 0 && !df_node_exists(d->node))
                /* Gone before its removal was heard: its record goes as with a removal. */
                log_info("%s: %s is gone, nothing to restore", d->name, d->node->path);
        else if (r < 0) {
                /* Kept, and owed: tried again when the node attaches, when CPUs come and go, and at
                 * exit; a record a crashed run left counts as such too. */
                e->owed = true;
                return log_error_errno(
                        r, "%s: restoring the original settings of %s failed: %s", d->name, d->node->path,
                        d->node->error[0] ? d->node->error : strerror(-r));
        } else {
                log_info("%s: original settings restored", d->name);
                d->prepared = false;
        }
        if (save)
                (void) originals_remove(m->originals, d->node->path);
        else
                (void) originals_forget(m->originals, d->node->path);
        return 0;
}

void remove_device(struct manager *m, struct manager_device *d, bool restore) {
        if (m->listener && m->listener->device_removing)
                m->listener->device_removing(m, d, m->listener_userdata);
        if (restore)
                (void) restore_device(m, d, true);
        else if (!m->dry_run)
                (void) originals_remove(m->originals, d->node->path); /* gone with its directory */
        device_free(d);
}

static void move_requests(struct df_device *from, struct df_device *to) {
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++) {
                struct df_heap *l = &from->qos.lists[t];
                while (l->n > 0) {
                        struct df_qos_request *req = l->items[l->n - 1];
                        uint64_t value = req->value;
                        (void) df_qos_remove_request(req);
                        if (df_qos_add_request(&to->qos, req, (enum df_qos_type) t, value) < 0)
                                log_oom();
                }
        }
}

void keep_device(struct manager *m, struct manager_device *old, struct manager_device *fresh) {
        struct df_device *dev = fresh->dev;
        struct df_load_source *load = fresh->load;
        bool mode_changed = old->spec->mode != fresh->spec->mode;
        /* Read with the voltages before the reload: in clamp mode that charges what they owe. */
        double energy = manager_device_energy(old);

        /* The kernel's own settings back before the new mode. */
        if (mode_changed)
                (void) restore_device(m, old, true);
        if (!df_spec_equal(old->spec, fresh->spec))
                log_info("%s: its configuration changed", old->name);

        move_requests(old->dev, dev);
        /* Counters never go down: the points both tables hold keep their statistics, with the
         * total and the energy (charged with the new voltages from now on). */
        df_stats_carry(&dev->stats, &old->dev->stats, now_usec());
        df_device_set_current(dev, old->dev->current);
        df_device_carry_sample(dev, old->dev);
        /* The governor it ran, for its activation (carry_governor()). Under userspace,
         * initial-frequency applies at attach: the frequency in force stays, or the one set. */
        free(old->before_reload);
        old->before_reload = malloc(sizeof(*old->before_reload));
        if (old->before_reload) {
                *old->before_reload = old->dev->governor;
                /* Its ops, tunables and state: the map stays with the device it belongs to. */
                old->before_reload->passive_map = NULL;
                old->before_reload->n_passive_map = 0;
                old->before_reload_fresh = old->dev->sample_fresh;
        } else
                log_oom();
        if (dev->governor.ops == &df_governor_userspace)
                dev->governor.state.userspace = (typeof(dev->governor.state.userspace)){};

        fresh->dev = old->dev;
        fresh->load = old->load;
        old->dev = dev;
        old->load = load;
        /* The kernel governor is checked at a reload too: another writer's switch is named. */
        if (!mode_changed && old->prepared)
                device_recheck_kernel_governor(old);
        old->prepared = false;
        SWAP_PTR(old->spec, fresh->spec);
        device_free(fresh);
        if (mode_changed)
                manager_device_continue_energy(old, energy);
}

/* The section whose path leads to this node, if any. */
static const struct df_config_device *section_for(const struct manager *m, const char *canonical) {
        for (size_t i = 0; i < m->config->n_devices; i++) {
                const struct df_config_device *cd = &m->config->devices[i];
                _cleanup_free_ char *p = NULL;

                if (df_root_resolve(&m->root, cd->path, &p) >= 0 && streq(p, canonical))
                        return cd;
        }
        return NULL;
}

int insert_device(struct manager *m, struct manager_device *d) {
        size_t i = m->n_devices;
        struct manager_device **v;

        if (!GROW(m->devices, m->n_devices))
                return -ENOMEM;
        v = m->devices;
        while (i > 0 && strcmp(v[i - 1]->name, d->name) > 0) {
                v[i] = v[i - 1];
                i--;
        }
        v[i] = d;
        m->n_devices++;
        return 0;
}

static void log_skipped(const char *name, const struct df_config_errors *e) {
        for (size_t i = 0; i < e->n; i++)
                log_warning("%s: not attached: %s", name, e->messages[i]);
}

int manager_attach_path(struct manager *m, const char *path) {
        _cleanup_(df_config_errors_done) struct df_config_errors errors = {};

        assert(m);

        _cleanup_free_ char *canonical = NULL;
        const struct df_config_device *cd;
        struct manager_device *d = NULL;
        const char *name;
        int r;

        r = df_root_resolve(&m->root, path, &canonical);
        if (r < 0) {
                log_debug_errno(r, "%s: does not resolve inside the root, ignored: %m", path);
                return 0;
        }
        d = manager_find_path(m, canonical);
        if (d && df_node_exists(d->node))
                return 0;
        if (d) {
                /* Replaced with no remove event heard (a driver rebound while one was lost): the old
                 * device goes, and the path is attached afresh as it goes. */
                log_info("%s: %s went away and came back; attaching it afresh", d->name, canonical);
                d->vanished = true;
                manager_detach_vanished(m);
                return manager_find_path(m, canonical) ? 1 : 0;
        }
        cd = section_for(m, canonical);
        if (!cd && !m->config->autodiscover) {
                /* Not to be managed, but a restore may be owed to it (dropped while it failed). */
                if (originals_entry(m->originals, canonical))
                        (void) manager_restore_owed(m, false, OWED_SINCE);
                return 0;
        }
        name = cd ? cd->name : strrchr(canonical, '/') + 1;
        if (!cd &&
            (manager_find_device(m, name) || df_config_find_device(m->config, name) || !df_name_valid(name))) {
                log_warning("%s: not managing %s: the name is taken or invalid", name, canonical);
                return 0;
        }
        r = build_device(m, m->config, cd, canonical, name, &d, &errors);
        log_skipped(name, &errors);
        if (r <= 0)
                return r == -ENOMEM ? log_oom() : 0;
        r = insert_device(m, d);
        if (r < 0) {
                device_free(d);
                return log_oom();
        }
        log_info("%s: %s appeared; attaching it%s", name, canonical, cd ? "" : " (autodiscovered)");
        link_passive(m);
        activate_all(m, &d, 1); /* its originals are saved before its first write */
        manager_regroup(m);
        if (m->listener && m->listener->devices_changed)
                m->listener->devices_changed(m, m->listener_userdata);
        /* The active profile's settings and held requests reach the newcomer too. */
        if (m->profile && m->profile[0]) {
                manager_profile_apply_device(m, d);
                if (m->listener && m->listener->profile_requests)
                        m->listener->profile_requests(m, d, m->listener_userdata);
                device_evaluate(d, true);
        }
        return 1;
}

void reconfigure_device(struct manager *m, struct manager_device *d) {
        _cleanup_(df_config_errors_done) struct df_config_errors errors = {};
        struct manager_device *fresh = NULL;
        int r;

        assert(m);
        assert(d);

        d->reconfigure = false;
        r = build_device(m, m->config, section_for(m, d->node->path), d->node->path, d->name, &fresh, &errors);
        log_skipped(d->name, &errors);
        if (r <= 0) {
                if (r == -ENOMEM)
                        log_oom();
                else
                        log_warning("%s: keeping the configuration it had before the reload", d->name);
                return;
        }
        keep_device(m, d, fresh);
        link_passive(m);
        activate_all(m, &d, 1);
        manager_regroup(m);
        if (m->profile && m->profile[0])
                manager_profile_apply_device(m, d);
}

/* Vanished devices go. A path that holds a node again (the device removed and added back while no
 * uevent was heard: no udevd, a module reloaded) is another device, attached afresh. */
void manager_detach_vanished(struct manager *m) {
        size_t kept = 0, before = m->n_devices, n_paths = 0;
        char **paths = NULL;

        assert(m);

        for (size_t i = 0; i < m->n_devices; i++) {
                struct manager_device *d = m->devices[i];
                if (!d->vanished) {
                        m->devices[kept++] = d;
                        continue;
                }
                if (strv_push(&paths, &n_paths, d->node->path) < 0)
                        log_oom();
                remove_device(m, d, false);
        }
        if (kept == before)
                return;
        m->n_devices = kept;
        link_passive(m);
        manager_regroup(m);
        if (m->listener && m->listener->devices_changed)
                m->listener->devices_changed(m, m->listener_userdata);
        for (size_t i = 0; i < n_paths; i++)
                (void) manager_attach_path(m, paths[i]);
        strv_free(paths, n_paths);
}
