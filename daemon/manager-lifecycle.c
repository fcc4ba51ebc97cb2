/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's life: made, started, reloaded (validate everything, then swap), restored and
 * freed; and what its event sources run: a polling group's tick and the deferred detach. The top
 * file of daemon/manager*.c. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "strv.h"
#include "units.h"

static int on_group_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        struct poll_group *g = userdata;
        struct manager *m = g->manager;

        /* Rules first: a cap that trips now applies to this tick's decisions. */
        manager_thermal_poll(m, g->rules, g->n_rules);
        for (size_t i = 0; i < g->n_devices; i++)
                device_poll(g->devices[i]);

        /* Keep the schedule, unless we fell behind by more than a period (suspend, overload). */
        g->next += g->interval;
        if (g->next <= usec)
                g->next = usec + g->interval;
        (void) sd_event_source_set_time(s, g->next);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);

        /* May free this group: nothing may touch `g` afterwards. */
        manager_detach_vanished(m);
        return 0;
}

static int on_detach(sd_event_source *s, void *userdata) {
        manager_detach_vanished(userdata);
        return 0;
}

int manager_new(sd_event *event, const struct manager_options *o, struct manager **ret) {
        struct manager *m;
        int r;

        assert(o);
        assert(ret);

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(event);
        m->root.fd = -EBADF;
        m->dry_run = o->dry_run;
        m->desktop_profile = o->desktop_profile;
        m->desktop_profile_userdata = o->desktop_profile_userdata;
        m->config_file = strdup(o->config_file);
        m->config_dir = o->config_dir ? strdup(o->config_dir) : NULL;
        m->runtime_dir = strdup(o->runtime_dir);
        m->state_dir = strdup(o->state_dir);
        if (!m->config_file || (o->config_dir && !m->config_dir) || !m->runtime_dir || !m->state_dir) {
                manager_free(m);
                return -ENOMEM;
        }
        r = df_root_open(o->root, &m->root);
        if (r < 0) {
                log_error_errno(r, "Cannot open the root directory %s: %m", o->root);
                manager_free(m);
                return r;
        }
        r = originals_load(m->runtime_dir, &m->originals);
        if (r >= 0)
                r = state_load(m->state_dir, m->dry_run, &m->state);
        if (r < 0) {
                manager_free(m);
                return r;
        }
        m->poll_tick = on_group_tick;
        r = sd_event_add_defer(m->event, &m->detach_event, on_detach, m);
        if (r < 0) {
                log_error_errno(r, "Cannot add the event source that detaches vanished devices: %m");
                manager_free(m);
                return r;
        }
        (void) sd_event_source_set_description(m->detach_event, "detach-vanished");
        (void) sd_event_source_set_enabled(m->detach_event, SD_EVENT_OFF);
        *ret = m;
        return 0;
}

struct manager *manager_free(struct manager *m) {
        if (!m)
                return NULL;
        manager_groups_free(m);
        manager_thermal_free(m);
        sd_event_source_disable_unref(m->detach_event);
        free_devices(m->devices, m->n_devices);
        df_config_free(m->config);
        originals_free(m->originals);
        state_free(m->state);
        df_root_close(&m->root);
        sd_event_unref(m->event);
        free(m->config_file);
        free(m->config_dir);
        free(m->runtime_dir);
        free(m->state_dir);
        free(m->profile);
        free(m->reload_error);
        free(m);
        return NULL;
}

static void log_errors(const struct df_config_errors *e) {
        for (size_t i = 0; i < e->n; i++)
                log_error("%s", e->messages[i]);
        if (e->dropped)
                log_error("... and %zu more errors", e->dropped);
}

static char *errors_join(const struct df_config_errors *e) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        for (size_t i = 0; i < e->n; i++)
                fprintf(f, "%s%s", i ? "\n" : "", e->messages[i]);
        if (e->dropped)
                fprintf(f, "\n... and %zu more errors", e->dropped);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

static int load_and_build(
        struct manager *m, struct df_config **ret_config, struct manager_device ***ret_devices, size_t *ret_n,
        struct df_config_errors *errors) {
        struct df_config *c = NULL;
        int r;

        r = df_config_load(m->config_file, m->config_dir, &c, errors);
        if (r < 0)
                return r;
        /* The devices' accessors consult the configuration they were built from. */
        r = build_devices(m, c, ret_devices, ret_n, errors);
        if (r < 0) {
                df_config_free(c);
                return r;
        }
        *ret_config = c;
        return 0;
}

int manager_start(struct manager *m) {
        struct df_config_errors errors = {};
        int r;

        assert(m);

        r = load_and_build(m, &m->config, &m->devices, &m->n_devices, &errors);
        if (r < 0) {
                log_errors(&errors);
                df_config_errors_done(&errors);
                return r == -ENOMEM ? log_oom() : r;
        }
        df_config_errors_done(&errors);
        /* Originals left by a run that did not restore them (a crash): written back before the new
         * configuration applies, whether it drives the node or not; the first write afterwards
         * records them afresh. One that cannot be restored now stays owed. */
        (void) manager_restore_owed(m, true, "left by an earlier run");
        link_passive(m);
        (void) manager_thermal_load(m, m->config);
        manager_profile_choose(m); /* each device's first evaluation is under it */
        activate_all(m, m->devices, m->n_devices);
        manager_profile_start(m);
        manager_regroup(m);
        manager_detach_vanished(m);
        if (m->listener && m->listener->devices_changed)
                m->listener->devices_changed(m, m->listener_userdata);
        return 0;
}

/* Whether a device whose CPUs are offline, and so not built by the reload, stays under the new
 * configuration `c`: by its section, at the same path, or autodiscovered; the devices built
 * `fresh` do not hold its name. */
static bool offline_stays(
        struct manager *m, const struct df_config *c, struct manager_device **fresh, size_t n_fresh,
        const struct manager_device *old) {
        const struct df_config_device *cd = df_config_find_device(c, old->name);
        _cleanup_free_ char *canonical = NULL;

        if (!old->offline)
                return false;
        for (size_t j = 0; j < n_fresh; j++)
                if (streq(fresh[j]->name, old->name))
                        return false;
        if (!cd)
                return c->autodiscover && streq(strrchr(old->node->path, '/') + 1, old->name);
        return df_root_resolve(&m->root, cd->path, &canonical) >= 0 && streq(canonical, old->node->path);
}

/* The old devices against the fresh ones: a device in both keeps its object, one whose CPUs are
 * offline stays as it is (offline_stays()), any other is released. m->devices becomes the new list,
 * and *activate what is to be activated. -ENOMEM before anything changed. */
static int settle_devices(
        struct manager *m, const struct df_config *c, struct manager_device **fresh, size_t n_fresh,
        struct manager_device **activate, size_t *n_activate) {
        struct manager_device **carried = calloc(m->n_devices ? m->n_devices : 1, sizeof(*carried));
        size_t n_carried = 0;

        if (!carried)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_devices; i++) {
                struct manager_device *old = m->devices[i], *match = NULL;
                for (size_t j = 0; j < n_fresh && !match; j++)
                        if (streq(fresh[j]->name, old->name) && streq(fresh[j]->node->path, old->node->path))
                                match = fresh[j];
                if (match)
                        continue;
                if (offline_stays(m, c, fresh, n_fresh, old)) {
                        log_info(
                                "%s: every CPU of the policy is offline; the new configuration reaches it when one is back",
                                old->name);
                        old->reconfigure = true;
                        carried[n_carried++] = old;
                } else {
                        log_info("%s: no longer configured, releasing it", old->name);
                        remove_device(m, old, true);
                }
                m->devices[i] = NULL;
        }
        *n_activate = 0;
        for (size_t j = 0; j < n_fresh; j++) {
                struct manager_device *old = NULL;
                for (size_t i = 0; i < m->n_devices && !old; i++)
                        if (m->devices[i] && streq(m->devices[i]->name, fresh[j]->name))
                                old = m->devices[i];
                if (old) {
                        keep_device(m, old, fresh[j]);
                        fresh[j] = old;
                }
                activate[(*n_activate)++] = fresh[j];
        }
        free(m->devices);
        m->devices = fresh;
        m->n_devices = n_fresh;
        for (size_t i = 0; i < n_carried; i++)
                if (insert_device(m, carried[i]) < 0) {
                        log_oom();
                        remove_device(m, carried[i], true);
                }
        free(carried);
        return 0;
}

int manager_reload(struct manager *m, char **ret_error) {
        struct df_config_errors errors = {};
        struct df_config *c = NULL;
        struct manager_device **fresh = NULL, **activate = NULL;
        size_t n_fresh = 0, n_activate = 0;
        bool thermal_changed;
        int r;

        assert(m);

        r = load_and_build(m, &c, &fresh, &n_fresh, &errors);
        if (r < 0) {
                log_error("Reloading the configuration failed; the old one stays in force:");
                log_errors(&errors);
                free(m->reload_error);
                m->reload_error = strdup(errors.n > 0 ? errors.messages[0] : strerror(-r));
                if (ret_error)
                        *ret_error = r == -ENOMEM ? strdup("out of memory") : errors_join(&errors);
                df_config_errors_done(&errors);
                return r;
        }
        df_config_errors_done(&errors);

        free(m->reload_error);
        m->reload_error = NULL;

        /* From here on nothing can fail for configuration reasons. */
        activate = calloc(n_fresh ? n_fresh : 1, sizeof(*activate));
        if (!activate || settle_devices(m, c, fresh, n_fresh, activate, &n_activate) < 0) {
                free(activate);
                free_devices(fresh, n_fresh);
                df_config_free(c);
                return log_oom();
        }
        thermal_changed = manager_thermal_load(m, c); /* while the old rules' configuration exists */
        df_config_free(m->config);
        m->config = c;

        link_passive(m);
        activate_all(m, activate, n_activate);
        free(activate);
        if (thermal_changed)
                manager_thermal_changed(m);
        manager_profile_reload(m);
        manager_regroup(m);
        manager_detach_vanished(m);
        if (m->listener && m->listener->devices_changed)
                m->listener->devices_changed(m, m->listener_userdata);
        log_info("Configuration reloaded: %zu devices", m->n_devices);
        if (m->listener && m->listener->reloaded)
                m->listener->reloaded(m, m->listener_userdata);
        return 0;
}

int manager_restore_all(struct manager *m) {
        size_t failed = 0, owed;

        assert(m);

        for (size_t i = 0; i < m->n_groups; i++)
                (void) sd_event_source_set_enabled(m->groups[i]->timer, SD_EVENT_OFF);
        for (size_t i = 0; i < m->n_devices; i++)
                if (restore_device(m, m->devices[i], false) < 0)
                        failed++;
        /* Once for all: each save rewrites the file. One that fails leaves records of nodes
         * written back already; the next start writes the same originals again. */
        if (!m->dry_run)
                (void) originals_save(m->originals);
        if (failed > 0)
                log_error(
                        "%zu of %zu devices kept devfreqd's settings; their originals stay for devfreqd --restore",
                        failed, m->n_devices);
        /* Then the nodes no device manages any more whose restore is still owed. */
        owed = manager_restore_owed(m, false, OWED_SINCE);
        if (owed > 0)
                log_error(
                        "%zu nodes devfreqd no longer manages kept its settings; their originals stay for "
                        "devfreqd --restore",
                        owed);
        return failed + owed > 0 ? -EIO : 0;
}

char *manager_status(const struct manager *m) {
        size_t govern = 0, polling = 0;
        char *s;

        assert(m);

        for (size_t i = 0; i < m->n_devices; i++) {
                govern += m->devices[i]->dev->mode == DF_MODE_GOVERN;
                polling += m->devices[i]->group != NULL;
        }
        /* A failed reload stays in the status (systemctl status) until one succeeds. */
        if (asprintf(
                    &s, "%s%zu devices (%zu govern, %zu clamp), %zu polling%s%s",
                    m->dry_run ? "Dry run: " : "", m->n_devices, govern, m->n_devices - govern, polling,
                    m->reload_error ? "; reload failed, the previous configuration runs: " : "",
                    strempty(m->reload_error)) < 0)
                return NULL;
        return s;
}
