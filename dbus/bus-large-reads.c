/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Large reads: GetManagedObjects and Introspect cost in proportion to the live requests (thousands
 * of objects: tens of milliseconds and megabytes each). A caller other than root may have at most
 * LARGE_READS_PER_CONNECTION of them waiting, LARGE_READS_PER_USER over all the connections of its
 * uid, LARGE_READS_MAX over all callers; beyond that the call is answered LimitsExceeded at once.
 * The waiting ones are answered in the order they came, one at a time, when no other message waits
 * (idle priority), and paced: after one that took T, the next waits LARGE_READ_PACE × T, so that
 * they take at most a 1/(1 + LARGE_READ_PACE) share of the daemon's time and of the bus's, and
 * another caller's AddRequest finds at most one in its way. Their memory is one reply at a time. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-internal.h"
#include "logging.h"
#include "macro.h"
#include "units.h"

struct large_read {
        sd_bus_message *call;
        char *sender;
        uint32_t uid;
        bool admitted; /* queued for sd-bus again: the filter lets it through once */
        struct large_read *next;
};

static bool is_large_read(sd_bus_message *m) {
        return sd_bus_message_is_method_call(m, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects") ||
                sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Introspectable", "Introspect");
}

static void read_free(struct large_read *r) {
        sd_bus_message_unref(r->call);
        free(r->sender);
        free(r);
}

static void unlink_read(struct bus *b, struct large_read *r) {
        struct large_read **p = &b->large_reads;

        while (*p != r)
                p = &(*p)->next;
        *p = r->next;
        b->n_large_reads--;
}

static int on_idle(sd_event_source *s, void *userdata);

static int on_pace_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus *b = userdata;

        if (b->n_large_reads > 0)
                (void) sd_event_source_set_enabled(b->large_read_event, SD_EVENT_ONESHOT);
        return 0;
}

/* Not before the pause after the last one is over: 1 when it is over, else 0 with a timer set. */
static int paced(struct bus *b) {
        uint64_t now = df_now_usec(CLOCK_MONOTONIC);
        int r;

        if (now >= b->large_read_not_before)
                return 1;
        if (!b->large_read_timer) {
                r = sd_event_add_time(
                        b->event, &b->large_read_timer, CLOCK_MONOTONIC, b->large_read_not_before, 1000,
                        on_pace_timer, b);
                if (r < 0)
                        return 1; /* unpaced rather than never */
        } else {
                (void) sd_event_source_set_time(b->large_read_timer, b->large_read_not_before);
                (void) sd_event_source_set_enabled(b->large_read_timer, SD_EVENT_ONESHOT);
        }
        return 0;
}

/* Right after the dispatch that answered an admitted read: how long it took sets the pause. */
static int on_answered(sd_event_source *s, void *userdata) {
        struct bus *b = userdata;
        uint64_t now = df_now_usec(CLOCK_MONOTONIC);

        b->large_read_not_before = now + (now - b->large_read_started) * LARGE_READ_PACE;
        return 0;
}

/* Answer the oldest waiting read: sd-bus processes it again, and the filter lets it pass. */
static int on_idle(sd_event_source *s, void *userdata) {
        struct bus *b = userdata;
        struct large_read *r;
        int k;

        for (r = b->large_reads; r && r->admitted; r = r->next)
                ;
        if (!r || !paced(b))
                return 0;
        k = sd_bus_enqueue_for_read(b->bus, r->call);
        if (k < 0) {
                log_warning_errno(k, "Cannot answer %s's %s: %m", r->sender, sd_bus_message_get_member(r->call));
                unlink_read(b, r);
                read_free(r);
        } else
                r->admitted = true;
        if (b->n_large_reads > 0)
                (void) sd_event_source_set_enabled(b->large_read_event, SD_EVENT_ONESHOT);
        return 0;
}

/* LimitsExceeded when the caller's share is taken, else 0. */
static int refuse_over_share(struct bus *b, sd_bus_message *m, const char *sender, uint32_t uid) {
        unsigned per_conn = 0, per_user = 0;

        for (struct large_read *r = b->large_reads; r; r = r->next) {
                per_conn += streq(r->sender, sender);
                per_user += r->uid == uid;
        }
        if (per_conn >= LARGE_READS_PER_CONNECTION)
                return sd_bus_reply_method_errorf(
                        m, SD_BUS_ERROR_LIMITS_EXCEEDED,
                        "This connection has %u large reads waiting; try again", LARGE_READS_PER_CONNECTION);
        if (per_user >= LARGE_READS_PER_USER)
                return sd_bus_reply_method_errorf(
                        m, SD_BUS_ERROR_LIMITS_EXCEEDED,
                        "uid %" PRIu32 " has %u large reads waiting; try again", uid, LARGE_READS_PER_USER);
        if (b->n_large_reads >= LARGE_READS_MAX)
                return sd_bus_reply_method_errorf(
                        m, SD_BUS_ERROR_LIMITS_EXCEEDED, "%u large reads are waiting; try again",
                        LARGE_READS_MAX);
        return 0;
}

static int ensure_event(struct bus *b) {
        int r;

        if (b->large_read_event)
                return 0;
        r = sd_event_add_defer(b->event, &b->large_read_event, on_idle, b);
        if (r >= 0)
                r = sd_event_source_set_priority(b->large_read_event, SD_EVENT_PRIORITY_IDLE);
        if (r >= 0)
                r = sd_event_add_post(b->event, &b->large_read_post, on_answered, b);
        if (r >= 0)
                r = sd_event_source_set_enabled(b->large_read_post, SD_EVENT_OFF);
        if (r < 0) {
                b->large_read_event = sd_event_source_disable_unref(b->large_read_event);
                b->large_read_post = sd_event_source_disable_unref(b->large_read_post);
        }
        return r;
}

/* 1: the call was taken (queued, or refused); 0: sd-bus goes on with it now. */
static int take(struct bus *b, sd_bus_message *m, const char *sender, uint32_t uid) {
        struct large_read *r, **tail;

        if (refuse_over_share(b, m, sender, uid) != 0)
                return 1;
        if (ensure_event(b) < 0)
                return 0; /* answered at once, as without this file */
        r = calloc(1, sizeof(*r));
        if (!r || !(r->sender = strdup(sender))) {
                free(r);
                return 0;
        }
        r->call = sd_bus_message_ref(m);
        r->uid = uid;
        for (tail = &b->large_reads; *tail; tail = &(*tail)->next)
                ;
        *tail = r; /* answered in the order they came */
        b->n_large_reads++;
        (void) sd_event_source_set_enabled(b->large_read_event, SD_EVENT_ONESHOT);
        return 1;
}

static int on_incoming_call(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        uint32_t uid, pid;

        if (!is_large_read(m))
                return 0;
        for (struct large_read *r = b->large_reads; r; r = r->next)
                if (r->call == m && r->admitted) {
                        unlink_read(b, r);
                        read_free(r);
                        /* sd-bus answers it in this dispatch; the post source times it. */
                        b->large_read_started = df_now_usec(CLOCK_MONOTONIC);
                        if (b->large_read_post)
                                (void) sd_event_source_set_enabled(b->large_read_post, SD_EVENT_ONESHOT);
                        return 0;
                }
        if (sender_creds(b, m, &uid, &pid) < 0 || uid == 0)
                return 0;
        return take(b, m, message_sender(m), uid);
}

int large_reads_start(struct bus *b) {
        return sd_bus_add_filter(b->bus, NULL, on_incoming_call, b);
}

void large_reads_free(struct bus *b) {
        while (b->large_reads) {
                struct large_read *r = b->large_reads;
                unlink_read(b, r);
                read_free(r);
        }
        b->large_read_event = sd_event_source_disable_unref(b->large_read_event);
        b->large_read_post = sd_event_source_disable_unref(b->large_read_post);
        b->large_read_timer = sd_event_source_disable_unref(b->large_read_timer);
}
