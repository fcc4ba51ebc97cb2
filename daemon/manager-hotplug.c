/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Devices that come and go while the daemon runs: a node that appears is attached (with its
 * section, or autodiscovered), one that goes is detached, policies whose CPUs went offline are left
 * alone until one is back, and after a resume whatever the firmware reset is written again. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"

static struct manager_device *find_by_path(const struct manager *m, const char *path) {
        for (size_t i = 0; i < m->n_devices; i++)
                if (streq(m->devices[i]->node->path, path))
                        return m->devices[i];
        return NULL;
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

static int insert_sorted(struct manager *m, struct manager_device *d) {
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
        if (find_by_path(m, canonical))
                return 0;
        cd = section_for(m, canonical);
        if (!cd && !m->config->autodiscover)
                return 0;
        name = cd ? cd->name : strrchr(canonical, '/') + 1;
        if (!cd && (manager_find_device(m, name) || !df_name_valid(name))) {
                log_warning("%s: not managing %s: the name is taken or invalid", name, canonical);
                return 0;
        }
        r = build_device(m, m->config, cd, canonical, name, &d, &errors);
        log_skipped(name, &errors);
        if (r <= 0)
                return r == -ENOMEM ? log_oom() : 0;
        r = insert_sorted(m, d);
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

void manager_detach_path(struct manager *m, const char *path) {
        struct manager_device *d = find_by_path(m, path);

        assert(m);

        if (!d || df_node_exists(d->node))
                return;
        log_info("%s: %s went away", d->name, path);
        d->vanished = true;
        manager_detach_vanished(m);
}

/* The policies' CPUs changed, or a module came or went (a cpufreq driver with it): new policies
 * attach, gone ones detach (one re-created at its path is attached afresh), offline ones wait. */
void manager_rescan_policies(struct manager *m) {
        char **paths = NULL;
        size_t n = 0;

        assert(m);

        if (df_node_discover(&m->root, &paths, &n) >= 0)
                for (size_t i = 0; i < n; i++) {
                        if (strstr(paths[i], "/cpufreq/policy"))
                                (void) manager_attach_path(m, paths[i]);
                        free(paths[i]);
                }
        free(paths);
        for (size_t i = 0; i < m->n_devices; i++) {
                struct manager_device *d = m->devices[i];
                bool online;

                if (d->node->kind != DF_KIND_CPUFREQ)
                        continue;
                if (!df_node_exists(d->node)) {
                        if (!d->vanished)
                                log_info("%s: %s went away", d->name, d->node->path);
                        d->vanished = true;
                        continue;
                }
                online = df_node_online(d->node);
                if (online == !d->offline)
                        continue;
                d->offline = !online;
                if (d->offline) {
                        log_info(
                                "%s: every CPU of the policy is offline; leaving it alone until one is back",
                                d->name);
                        continue;
                }
                /* The kernel may have set the policy up afresh: everything is written again. */
                log_info("%s: a CPU of the policy is online again; applying everything again", d->name);
                d->prepared = false;
                df_device_force_write(d->dev);
                device_evaluate(d, true);
        }
        manager_detach_vanished(m);
}

/* After a resume: what a driver or the firmware reset is written again, one log line a device. */
static void resume_device(struct manager_device *d) {
        uint64_t seen;
        bool fixed = false;

        d->skip_sample = true; /* it spans the sleep */
        if (d->vanished || d->offline || !d->prepared)
                return;
        if (d->node->drive == DF_DRIVE_USERSPACE) {
                fixed = df_node_check_kernel_governor(d->node) > 0;
                fixed = df_node_check_foreign(d->node, &seen) > 0 || fixed;
                if (fixed)
                        d->node->has_written = false; /* a reset, not another writer: no LastError */
        }
        /* min/max read back effective values: never compared, written again where devfreqd holds them. */
        if (fixed || d->node->drive == DF_DRIVE_PINNED || (d->node->drive == DF_DRIVE_CLAMP && d->dev->holding))
                df_device_force_write(d->dev);
        if (fixed)
                log_info("%s: its settings were reset during the sleep; written again", d->name);
        device_evaluate(d, true);
}

void manager_resume(struct manager *m) {
        assert(m);

        log_debug("Resumed from sleep: checking every device");
        for (size_t i = 0; i < m->n_devices; i++)
                resume_device(m->devices[i]);
        manager_detach_vanished(m);
}
