/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Blame: who owns each request (command name and systemd unit, read once per connection), the
 * ended requests a device remembers, and GetBlame. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blame.h"
#include "bus-internal.h"
#include "logging.h"
#include "qos-binding.h"

/* The command name and unit of a client, from its pid (read from /proc, no bus round trip), once. */
void blame_describe_client(struct client *c, uint32_t pid) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *comm = NULL, *unit = NULL;

        if (c->described)
                return;
        c->described = true;
        if (pid == 0 ||
            sd_bus_creds_new_from_pid(
                    &creds, (pid_t) pid, SD_BUS_CREDS_COMM | SD_BUS_CREDS_UNIT | SD_BUS_CREDS_USER_UNIT) < 0)
                return;
        (void) sd_bus_creds_get_comm(creds, &comm);
        /* A user's service or scope says more than the user manager or session holding it. */
        if (sd_bus_creds_get_user_unit(creds, &unit) < 0 || !unit)
                (void) sd_bus_creds_get_unit(creds, &unit);
        c->command = comm ? strdup(comm) : NULL;
        c->unit = unit ? strdup(unit) : NULL;
}

static void describe(const struct request *q, struct df_blame_entry *e) {
        bool held = request_is_held(q);

        *e = (struct df_blame_entry){
                .type = q->qos.type,
                .uid = q->uid,
                .unit = held ? NULL : q->client->unit,
                /* The daemon's own requests are owned by what holds them: "profile NAME". */
                .command = held ? q->reason : q->client->command,
                .reason = q->reason,
                .value = q->qos.value,
                .binding_usec = df_qos_binding_time(&q->qos),
                .daemon_own = held,
        };
}

void blame_request_ended(struct request *q) {
        struct manager_device *d = q->device;
        struct df_blame_entry e;

        if (!d->ended) {
                d->ended = calloc(1, sizeof(*d->ended));
                if (!d->ended) {
                        log_oom();
                        return;
                }
        }
        describe(q, &e);
        if (df_blame_ring_push(d->ended, &e) < 0)
                log_oom();
}

struct blame_row {
        uint64_t id;
        struct df_blame_entry e;
};

/* "thermal RULE", where rows point (not in the rows: sorting moves them). */
typedef char owner_name[80];

static int row_compare(const void *a, const void *b) {
        const struct blame_row *x = a, *y = b;

        if (x->e.binding_usec != y->e.binding_usec)
                return x->e.binding_usec < y->e.binding_usec ? 1 : -1;
        return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

static int append_row(sd_bus_message *reply, const struct blame_row *w, uint32_t caller) {
        /* Other users' command names and reasons are theirs; the daemon's own holds are public. */
        bool shown = caller == 0 || caller == w->e.uid || w->e.daemon_own;

        return sd_bus_message_append(
                reply, "(tsussstt)", w->id, df_qos_type_to_string(w->e.type), w->e.uid, strempty(w->e.unit),
                shown ? strempty(w->e.command) : "", shown ? strempty(w->e.reason) : "", w->e.value,
                w->e.binding_usec);
}

/* A thermal rule, owner of the ceiling it set: "thermal RULE", id 0 (it is no request object). */
static void describe_thermal(const struct thermal_blame *t, char *owner, struct blame_row *w) {
        snprintf(owner, sizeof(owner_name), "thermal %s", t->rule);
        w->id = 0;
        w->e = (struct df_blame_entry){
                .type = DF_QOS_MAX_FREQUENCY,
                .command = owner,
                .reason = owner,
                .value = t->cap,
                .binding_usec = manager_blame_thermal_time(t),
                .daemon_own = true,
        };
}

int method_get_blame(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ struct blame_row *rows = NULL;
        _cleanup_free_ owner_name *owners = NULL;
        struct manager_device *d = userdata;
        size_t n_ended = d->ended ? d->ended->n : 0, n = 0;
        uint32_t caller = UINT32_MAX, pid;
        int r;

        r = sender_creds(d->manager->listener_userdata, m, &caller, &pid);
        if (r < 0)
                caller = UINT32_MAX; /* unknown: sees what anyone may */
        rows = calloc(d->bus.n_requests + n_ended + d->n_thermal_blame + 1, sizeof(*rows));
        owners = calloc(d->n_thermal_blame + 1, sizeof(*owners));
        if (!rows || !owners)
                return -ENOMEM;
        for (struct request *q = d->bus.requests; q; q = q->device_next, n++) {
                rows[n].id = q->id;
                describe(q, &rows[n].e);
        }
        for (size_t i = 0; i < n_ended; i++, n++)
                rows[n].e = *df_blame_ring_get(d->ended, i);
        for (size_t i = 0; i < d->n_thermal_blame; i++, n++)
                describe_thermal(&d->thermal_blame[i], owners[i], &rows[n]);
        qsort(rows, n, sizeof(*rows), row_compare);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(tsussstt)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = append_row(reply, &rows[i], caller);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int method_get_forgotten_binding_time(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct manager_device *d = userdata;
        size_t n = d->ended ? d->ended->n_forgotten : 0;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sst)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const struct df_blame_total *t = &d->ended->forgotten[i];
                r = sd_bus_message_append(
                        reply, "(sst)", df_qos_type_to_string(t->type), t->owner, t->binding_usec);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
