/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's own requests: the active profile's floor and ceiling on each device, as request
 * objects like any other (Owner the daemon's unique name, UID 0, PID the daemon's, Reason
 * "profile NAME"), counted against no limit, and changed only by profile switches. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-internal.h"
#include "logging.h"
#include "units.h"

static struct client *daemon_client(struct bus *b) {
        const char *unique = NULL;
        struct client *c;

        if (b->daemon_client)
                return b->daemon_client;
        c = calloc(1, sizeof(*c));
        if (!c)
                return NULL;
        /* Without a broker (peer-to-peer) there is no unique name. */
        if (sd_bus_get_unique_name(b->bus, &unique) < 0)
                unique = "";
        c->bus = b;
        c->name = strdup(unique);
        if (!c->name) {
                free(c);
                return NULL;
        }
        b->daemon_client = c;
        return c;
}

void held_requests_free(struct bus *b) {
        if (!b->daemon_client)
                return;
        free(b->daemon_client->name);
        free(b->daemon_client);
        b->daemon_client = NULL;
}

static struct request *held_find(struct manager_device *d, enum df_qos_type type) {
        for (struct request *q = d->bus.requests; q; q = q->device_next)
                if (request_is_held(q) && q->qos.type == type)
                        return q;
        return NULL;
}

static int
held_add(struct bus *b, struct manager_device *d, enum df_qos_type type, uint64_t value, const char *profile) {
        struct client *c = daemon_client(b);
        struct request *q;
        int r;

        if (!c)
                return -ENOMEM;
        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        q->bus = b;
        q->client = c;
        q->device = d;
        q->id = df_idgen_next(&b->ids);
        q->pid = (uint32_t) getpid();
        q->created_realtime = df_now_usec(CLOCK_REALTIME);
        q->application_id = strdup("");
        if (!q->application_id || asprintf(&q->reason, "profile %s", profile) < 0 ||
            asprintf(&q->path, REQUEST_PREFIX "/%" PRIu64, q->id) < 0 ||
            df_idtable_insert(&b->requests, q->id, q) < 0) {
                request_free(q);
                return -ENOMEM;
        }
        r = df_qos_add_request(&d->dev->qos, &q->qos, type, value);
        if (r < 0) {
                (void) df_idtable_remove(&b->requests, q->id);
                request_free(q);
                return r;
        }
        request_link(q);
        b->n_held++;
        request_announce(q);
        return 0;
}

/* One type: the request the profile wants (value `want`, none when `none`), kept, updated in place
 * for the same profile, or replaced (the Reason names the profile). */
static int held_sync_one(struct bus *b, struct manager_device *d, enum df_qos_type type, uint64_t want, bool none) {
        const char *profile = b->manager->profile;
        struct request *q = held_find(d, type);
        char reason[256];

        snprintf(reason, sizeof(reason), "profile %s", strempty(profile));
        if (q && (none || !profile || !streq(q->reason, reason))) {
                held_request_drop(q);
                device_emit_changes(b, d, DEVICE_CHANGED_REQUESTS);
                q = NULL;
        }
        if (none || !profile)
                return 0;
        if (!q)
                return held_add(b, d, type, want, profile);
        if (q->qos.value != want) {
                (void) df_qos_update_request(&q->qos, want);
                request_emit_value_changed(q);
        }
        return 0;
}

/* The manager decided d->profile: hold its floor and ceiling; it re-evaluates the device after. */
void held_requests_sync(struct manager *m, struct manager_device *d, void *userdata) {
        struct bus *b = userdata;
        const struct df_profile_decision *p = &d->profile;
        int r;

        r = held_sync_one(b, d, DF_QOS_MIN_FREQUENCY, p->min_freq, p->min_freq == 0);
        if (r >= 0)
                r = held_sync_one(
                        b, d, DF_QOS_MAX_FREQUENCY, p->max_freq, p->max_freq == UINT64_MAX || p->max_freq == 0);
        if (r < 0)
                log_warning_errno(r, "%s: cannot hold the profile's frequency limits: %m", d->name);
}
