/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Clients: one record per bus connection holding requests or awaiting a check, whose requests
 * all go when it leaves the bus (one match rule for every client: the bus driver's
 * NameOwnerChanged of a name lost); and a small cache of callers' credentials. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-internal.h"
#include "logging.h"

static void client_free(struct client *c) {
        struct bus *b = c->bus;

        if (c->idle)
                b->n_idle_clients--;
        if (c->prev)
                c->prev->next = c->next;
        else
                b->clients = c->next;
        if (c->next)
                c->next->prev = c->prev;
        free(c->command);
        free(c->unit);
        free(c->name);
        free(c);
}

static void client_gone(struct client *c) {
        size_t n = c->n_requests;

        /* Hold the record while its requests and checks go (the last drop would free it). */
        c->n_pending++;
        c->bus->client_leaving(c);
        c->n_pending--;
        if (n > 0)
                log_info("%s left the bus; its %zu request%s released", c->name, n, n == 1 ? "" : "s");
        /* Gone for good: no idle record is kept for it. */
        if (c->n_requests == 0 && c->n_pending == 0)
                client_free(c);
}

/* The bus driver says a unique name left: if it was a client, its requests and checks go. */
static int on_name_lost(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        const char *name, *old_owner, *new_owner;
        struct client *c;

        if (!signal_from_driver(b, m))
                return 0;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || *new_owner || name[0] != ':')
                return 0;
        c = client_find(b, name);
        if (c)
                client_gone(c);
        return 0;
}

int clients_watch_start(struct bus *b) {
        /* On a peer-to-peer connection the one peer is the connection: it leaves with it. */
        if (sd_bus_is_bus_client(b->bus) <= 0)
                return 0;
        /* One rule for all: a rule per client would end at the bus's limit of rules per connection
         * (512 on the system bus), where sd-bus closes the connection whose rule is refused. */
        return sd_bus_add_match(
                b->bus, &b->clients_gone,
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg2=''",
                on_name_lost, b);
}

struct client *client_find(struct bus *b, const char *name) {
        for (struct client *c = b->clients; c; c = c->next)
                if (streq(c->name, name))
                        return c;
        return NULL;
}

int client_acquire(struct bus *b, const char *name, struct client **ret) {
        struct client *c = client_find(b, name);

        if (c) {
                if (c->idle) {
                        c->idle = 0;
                        b->n_idle_clients--;
                }
                *ret = c;
                return 0;
        }
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->bus = b;
        c->name = strdup(name);
        if (!c->name) {
                free(c);
                return -ENOMEM;
        }
        c->next = b->clients;
        if (b->clients)
                b->clients->prev = c;
        b->clients = c;
        *ret = c;
        return 0;
}

void client_release_if_unused(struct client *c) {
        struct bus *b = c->bus;
        struct client *oldest = NULL;

        if (c->n_requests > 0 || c->n_pending > 0 || c->idle)
                return;
        /* Without the watch of names lost (peer-to-peer) nothing would ever free an idle record. */
        if (!b->clients_gone) {
                client_free(c);
                return;
        }
        c->idle = ++b->idle_clock;
        if (++b->n_idle_clients <= IDLE_CLIENTS_MAX)
                return;
        for (struct client *i = b->clients; i; i = i->next)
                if (i->idle && (!oldest || i->idle < oldest->idle))
                        oldest = i;
        client_free(oldest);
}

size_t user_requests(struct bus *b, uint32_t uid) {
        size_t n = 0;

        for (struct client *c = b->clients; c; c = c->next)
                if (c->uid == uid)
                        n += c->n_requests;
        return n;
}

void clients_free_all(struct bus *b) {
        while (b->clients)
                client_free(b->clients);
        for (size_t i = 0; i < CREDS_CACHE_SIZE; i++) {
                free(b->creds[i].name);
                b->creds[i].name = NULL;
        }
}

const char *message_sender(sd_bus_message *m) {
        const char *sender = sd_bus_message_get_sender(m);

        /* The broker sets the sender of every message; a peer-to-peer connection has none. */
        return sender ? sender : PEER_SENDER;
}

/* The caller's effective uid and pid from the bus, once per unique name (names are never reused). */
int sender_creds(struct bus *b, sd_bus_message *m, uint32_t *ret_euid, uint32_t *ret_pid) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *sender = message_sender(m);
        struct creds_entry *slot = &b->creds[0];
        uid_t euid;
        pid_t pid = 0;
        int r;

        for (size_t i = 0; i < CREDS_CACHE_SIZE; i++) {
                struct creds_entry *e = &b->creds[i];
                if (e->name && streq(e->name, sender)) {
                        e->used = ++b->creds_clock;
                        *ret_euid = e->euid;
                        *ret_pid = e->pid;
                        return 0;
                }
                if (!e->name || (slot->name && e->used < slot->used))
                        slot = e;
        }

        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_PID | SD_BUS_CREDS_AUGMENT, &creds);
        if (r < 0)
                return log_warning_errno(r, "Cannot get the credentials of %s: %m", sender);
        r = sd_bus_creds_get_euid(creds, &euid);
        if (r < 0)
                return log_warning_errno(r, "The bus does not report the uid of %s: %m", sender);
        (void) sd_bus_creds_get_pid(creds, &pid);

        free(slot->name);
        slot->name = strdup(sender);
        slot->euid = euid;
        slot->pid = (uint32_t) pid;
        slot->used = ++b->creds_clock;
        *ret_euid = euid;
        *ret_pid = (uint32_t) pid;
        return 0;
}
