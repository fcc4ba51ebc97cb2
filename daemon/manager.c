/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every file of the manager calls: the device list's lookups, the polling groups (one timer
 * per interval, shared by devices and thermal rules) and the deferred detach. This is the bottom
 * file of daemon/manager*.c: it calls none of the others (manager-internal.h gives the order). */

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

static void group_free(struct poll_group *g) {
        sd_event_source_disable_unref(g->timer);
        free(g->devices);
        free(g->rules);
        free(g);
}

void manager_groups_free(struct manager *m) {
        assert(m);

        for (size_t i = 0; i < m->n_groups; i++)
                group_free(m->groups[i]);
        free(m->groups);
        m->groups = NULL;
        m->n_groups = 0;
}

void manager_set_listener(struct manager *m, const struct manager_listener *l, void *userdata) {
        assert(m);

        m->listener = l;
        m->listener_userdata = userdata;
}

struct manager_device *manager_find_device(const struct manager *m, const char *name) {
        size_t lo = 0, hi = m->n_devices;

        assert(m);

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(m->devices[mid]->name, name);
                if (c == 0)
                        return m->devices[mid];
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

struct manager_device *manager_find_path(const struct manager *m, const char *path) {
        for (size_t i = 0; i < m->n_devices; i++)
                if (streq(m->devices[i]->node->path, path))
                        return m->devices[i];
        return NULL;
}

/* --- polling groups ----------------------------------------------------------------------- */

static struct poll_group *group_get(struct manager *m, uint64_t interval) {
        struct poll_group *g, **slot;
        int r;

        for (size_t i = 0; i < m->n_groups; i++)
                if (m->groups[i]->interval == interval)
                        return m->groups[i];

        g = calloc(1, sizeof(*g));
        slot = g ? GROW(m->groups, m->n_groups) : NULL;
        if (!slot) {
                free(g);
                return NULL;
        }
        g->manager = m;
        g->interval = interval;
        g->next = now_usec() + interval;
        r = sd_event_add_time(
                m->event, &g->timer, CLOCK_MONOTONIC, g->next, MAX(UINT64_C(1000), interval / 100),
                m->poll_tick, g);
        if (r < 0) {
                log_error_errno(r, "Cannot add a %" PRIu64 " us timer: %m", interval);
                free(g);
                return NULL;
        }
        (void) sd_event_source_set_description(g->timer, "poll-group");
        *slot = g;
        m->n_groups++;
        log_debug("A poll timer every %" PRIu64 " us, shared by what polls at that interval", interval);
        return g;
}

/* Each thermal rule reads its zone on the timer of its poll interval, shared with devices. */
static void regroup_rules(struct manager *m) {
        for (size_t i = 0; i < m->n_rules; i++) {
                struct thermal_rule *r = m->rules[i];
                struct poll_group *g = group_get(m, r->config->poll_usec);
                struct thermal_rule **slot = g ? GROW(g->rules, g->n_rules) : NULL;

                r->group = g;
                if (!slot) {
                        log_oom();
                        continue;
                }
                *slot = r;
                g->n_rules++;
        }
}

void manager_regroup(struct manager *m) {
        size_t kept = 0;

        assert(m);

        for (size_t i = 0; i < m->n_groups; i++)
                m->groups[i]->n_devices = m->groups[i]->n_rules = 0;
        regroup_rules(m);
        for (size_t i = 0; i < m->n_devices; i++) {
                struct manager_device *d = m->devices[i];
                struct poll_group *g;
                struct manager_device **slot;

                d->group = NULL;
                /* A policy whose CPUs are all offline is left alone: nothing to sample until one is
                 * back (manager_rescan_policies() regroups then). */
                if (d->vanished || d->offline || !d->load || !df_device_polls(d->dev))
                        continue;
                g = group_get(m, d->spec->polling_usec);
                if (!g)
                        continue;
                slot = GROW(g->devices, g->n_devices);
                if (!slot) {
                        log_oom();
                        continue;
                }
                *slot = d;
                g->n_devices++;
                d->group = g;
        }
        /* No polling device and no rule at an interval: no timer for it at all. */
        for (size_t i = 0; i < m->n_groups; i++) {
                if (m->groups[i]->n_devices == 0 && m->groups[i]->n_rules == 0) {
                        log_debug(
                                "No poll timer every %" PRIu64 " us any more: nothing polls at that interval",
                                m->groups[i]->interval);
                        group_free(m->groups[i]);
                } else
                        m->groups[kept++] = m->groups[i];
        }
        m->n_groups = kept;
}

/* After an operation the bus layer called: the caller still holds the device and its requests
 * until it returns, so they are detached from the event loop, not under its feet (the source is
 * made with the manager, manager-lifecycle.c). */
void manager_detach_vanished_later(struct manager *m) {
        bool any = false;

        assert(m);

        for (size_t i = 0; i < m->n_devices && !any; i++)
                any = m->devices[i]->vanished;
        if (any)
                (void) sd_event_source_set_enabled(m->detach_event, SD_EVENT_ONESHOT);
}
