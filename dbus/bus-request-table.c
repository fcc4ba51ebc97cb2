/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The requests' leases: a heap by expiry (lib/heap.c) and one CLOCK_BOOTTIME timer at its top.
 * Their ids and the id table are lib/idtable.c. */

#include <inttypes.h>
#include <stddef.h>
#include <time.h>

#include "bus-internal.h"
#include "logging.h"
#include "units.h"

static bool expires_before(const void *a, const void *b) {
        return ((const struct request *) a)->expires_boottime < ((const struct request *) b)->expires_boottime;
}

static const struct df_heap_ops lease_ops = { expires_before, offsetof(struct request, lease_index) };

static int on_lease_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void lease_rearm(struct bus *b) {
        const struct request *first = df_heap_peek(&b->leases);
        int r;

        if (!first) {
                if (b->lease_timer)
                        (void) sd_event_source_set_enabled(b->lease_timer, SD_EVENT_OFF);
                return;
        }
        if (!b->lease_timer) {
                r = sd_event_add_time(
                        b->event, &b->lease_timer, CLOCK_BOOTTIME, first->expires_boottime, 1000,
                        on_lease_timer, b);
                if (r < 0) {
                        log_error_errno(r, "Cannot arm the lease timer: %m");
                        return;
                }
                (void) sd_event_source_set_description(b->lease_timer, "request-leases");
                return;
        }
        (void) sd_event_source_set_time(b->lease_timer, first->expires_boottime);
        (void) sd_event_source_set_enabled(b->lease_timer, SD_EVENT_ONESHOT);
}

int request_lease_add(struct bus *b, struct request *q) {
        int r;

        r = df_heap_push(&b->leases, &lease_ops, q);
        if (r < 0)
                return r;
        lease_rearm(b);
        return 0;
}

void request_lease_remove(struct bus *b, struct request *q) {
        if (!df_heap_remove_at(&b->leases, &lease_ops, df_heap_index(&lease_ops, q)))
                return;
        lease_rearm(b);
}

void request_leases_free(struct bus *b) {
        df_heap_done(&b->leases, &lease_ops);
        b->lease_timer = sd_event_source_disable_unref(b->lease_timer);
}

static int on_lease_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus *b = userdata;
        uint64_t now = df_now_usec(CLOCK_BOOTTIME);
        struct request *q;

        while ((q = df_heap_peek(&b->leases)) && q->expires_boottime <= now) {
                log_info("%s: request %" PRIu64 " expired", q->device->name, q->id);
                b->drop_request(q, true);
        }
        lease_rearm(b);
        return 0;
}
