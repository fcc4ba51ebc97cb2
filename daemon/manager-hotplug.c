/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Devices that come and go while the daemon runs: a node that goes is detached, policies whose
 * CPUs went offline are left alone until one is back, and after a resume whatever the firmware
 * reset is written again. A node that appears is attached by manager-attach.c. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"

void manager_detach_path(struct manager *m, const char *path) {
        struct manager_device *d = manager_find_path(m, path);

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
        bool regroup = false;
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
                regroup = true; /* its polling stops or starts again */
                if (d->offline) {
                        log_info(
                                "%s: every CPU of the policy is offline; leaving it alone until one is back",
                                d->name);
                        continue;
                }
                /* The kernel may have set the policy up afresh: everything is written again. */
                log_info("%s: a CPU of the policy is online again; applying everything again", d->name);
                if (d->reconfigure)
                        reconfigure_device(m, d);
                d->prepared = false;
                df_device_force_write(d->dev);
                device_evaluate(d, true);
        }
        if (regroup)
                manager_regroup(m);
        manager_detach_vanished(m);
        /* A policy dropped while its CPUs were offline is owed its restore: it may be possible now. */
        (void) manager_restore_owed(m, false, OWED_SINCE);
}

/* After a resume: what a driver or the firmware reset is written again, one log line a device. */
static void resume_device(struct manager_device *d) {
        uint64_t seen;
        bool fixed = false;

        d->skip_sample = true; /* it spans the sleep */
        if (d->vanished || d->offline || !d->prepared)
                return;
        if (d->node->drive == DF_DRIVE_USERSPACE) {
                fixed = df_node_check_kernel_governor(d->node, NULL, 0) > 0;
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
