/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who may send the signals devfreqd listens to. The bus driver's signals come only from
 * org.freedesktop.DBus, a name no client can own; a service's only from the unique name that owns
 * its well-known name now, as the bus driver itself says. Neither the sender= of a match rule nor
 * the broker protects a handler alone: the broker routes unicast signals whatever the match rules
 * say, and sd-bus lets any unique-name sender through a match on a well-known sender. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-internal.h"
#include "logging.h"
#include "units.h"

#define DRIVER_NAME "org.freedesktop.DBus"
#define DRIVER_PATH "/org/freedesktop/DBus"

/* Dropped signals are logged at debug level, at most DROP_LOG_BURST lines per DROP_LOG_INTERVAL. */
#define DROP_LOG_INTERVAL_USEC (10 * UINT64_C(1000000))
#define DROP_LOG_BURST 10

struct name_watch {
        struct bus *bus;
        char *name;  /* the well-known name */
        char *owner; /* its unique owner now, NULL while it has none */
        sd_bus_slot *match;
        name_owner_changed_t changed;
        void *userdata;
};

static void log_dropped(struct bus *b, sd_bus_message *m, const char *why) {
        uint64_t now = df_now_usec(CLOCK_MONOTONIC);

        b->dropped_signals++;
        if (now - b->drop_log_start >= DROP_LOG_INTERVAL_USEC) {
                if (b->drop_log_suppressed > 0)
                        log_debug("%" PRIu64 " more forged signals dropped", b->drop_log_suppressed);
                b->drop_log_start = now;
                b->drop_log_lines = 0;
                b->drop_log_suppressed = 0;
        }
        if (b->drop_log_lines >= DROP_LOG_BURST) {
                b->drop_log_suppressed++;
                return;
        }
        b->drop_log_lines++;
        log_debug(
                "Dropped a signal %s.%s from %s: %s", strna(sd_bus_message_get_interface(m)),
                strna(sd_bus_message_get_member(m)), strna(sd_bus_message_get_sender(m)), why);
}

/* The broker stamps the sender of every message it routes, and never as its own name. */
static bool sent_by_driver(sd_bus_message *m) {
        return streq_ptr(sd_bus_message_get_sender(m), DRIVER_NAME);
}

bool signal_from_driver(struct bus *b, sd_bus_message *m) {
        if (sent_by_driver(m))
                return true;
        log_dropped(b, m, "only the bus sends it");
        return false;
}

bool signal_from_owner(struct bus *b, const struct name_watch *w, sd_bus_message *m) {
        if (w && w->owner && streq_ptr(sd_bus_message_get_sender(m), w->owner))
                return true;
        log_dropped(b, m, w && w->owner ? "not the owner of the name" : "the name has no owner");
        return false;
}

/* Before any match (the clients' watch included) sees it: a signal that claims to be the bus driver's
 * and is not. Returning 1 ends the message's processing here. */
static int on_incoming_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;

        if (!sd_bus_message_is_signal(m, NULL, NULL) || sent_by_driver(m))
                return 0;
        if (!streq_ptr(sd_bus_message_get_interface(m), DRIVER_NAME) &&
            !streq_ptr(sd_bus_message_get_path(m), DRIVER_PATH))
                return 0;
        log_dropped(b, m, "only the bus sends it");
        return 1;
}

int senders_filter_start(struct bus *b) {
        return sd_bus_add_filter(b->bus, NULL, on_incoming_signal, b);
}

static int set_owner(struct name_watch *w, const char *owner) {
        char *copy = NULL;

        if (owner && *owner && !(copy = strdup(owner)))
                return -ENOMEM;
        if (streq_ptr(copy, w->owner)) {
                free(copy);
                return 0;
        }
        free(w->owner);
        w->owner = copy;
        if (w->changed)
                w->changed(w, w->owner, w->userdata);
        return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct name_watch *w = userdata;
        const char *name, *old_owner, *new_owner;

        if (!signal_from_driver(w->bus, m))
                return 0;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, w->name))
                return 0;
        if (set_owner(w, new_owner) < 0)
                log_oom();
        return 0;
}

/* The match first, then the question: a change after the answer arrives as a signal, handled after
 * the answer (the bus keeps the order of what it sends one connection). */
int name_watch_new(
        struct bus *b, const char *name, name_owner_changed_t changed, void *userdata, struct name_watch **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *rule = NULL;
        struct name_watch *w;
        const char *owner;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->bus = b;
        w->changed = changed;
        w->userdata = userdata;
        w->name = strdup(name);
        if (!w->name ||
            asprintf(
                    &rule,
                    "type='signal',sender='" DRIVER_NAME "',path='" DRIVER_PATH "',"
                    "interface='" DRIVER_NAME "',member='NameOwnerChanged',arg0='%s'",
                    name) < 0) {
                name_watch_free(w);
                return -ENOMEM;
        }
        r = sd_bus_add_match(b->bus, &w->match, rule, on_owner_changed, w);
        if (r < 0) {
                name_watch_free(w);
                return r;
        }
        r = sd_bus_call_method(
                b->bus, DRIVER_NAME, DRIVER_PATH, DRIVER_NAME, "GetNameOwner", NULL, &reply, "s", name);
        if (r >= 0 && sd_bus_message_read(reply, "s", &owner) >= 0) {
                w->owner = strdup(owner);
                if (!w->owner) {
                        name_watch_free(w);
                        return -ENOMEM;
                }
        }
        *ret = w;
        return 0;
}

const char *name_watch_owner(const struct name_watch *w) {
        return w ? w->owner : NULL;
}

struct name_watch *name_watch_free(struct name_watch *w) {
        if (!w)
                return NULL;
        sd_bus_slot_unref(w->match);
        free(w->name);
        free(w->owner);
        free(w);
        return NULL;
}
