/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A device's PropertiesChanged: what the manager reports changed, CurrentFrequency changes found by
 * polling held back to one signal per 100 ms, and a request method's changes held for its reply. */

#include <errno.h>

#include "bus-internal.h"
#include "logging.h"
#include "units.h"

/* Listener path: the manager reports which published properties changed. */
/* The properties that announce their changes, one per DEVICE_CHANGED_* bit. */
static const struct {
        unsigned bit;
        const char *name;
} changed_map[] = {
        { DEVICE_CHANGED_GOVERNOR, "Governor" },
        { DEVICE_CHANGED_AVAILABLE_GOVERNORS, "AvailableGovernors" },
        { DEVICE_CHANGED_MODE, "Mode" },
        { DEVICE_CHANGED_MIN_FREQUENCY, "MinFrequency" },
        { DEVICE_CHANGED_MAX_FREQUENCY, "MaxFrequency" },
        { DEVICE_CHANGED_AVAILABLE_FREQUENCIES, "AvailableFrequencies" },
        { DEVICE_CHANGED_OPERATING_POINTS, "OperatingPoints" },
        { DEVICE_CHANGED_POLLING_INTERVAL, "PollingInterval" },
        { DEVICE_CHANGED_QOS_MIN_FREQUENCY, "QosMinFrequency" },
        { DEVICE_CHANGED_QOS_MAX_FREQUENCY, "QosMaxFrequency" },
        { DEVICE_CHANGED_QOS_LATENCY, "QosLatency" },
        { DEVICE_CHANGED_TUNABLES, "Tunables" },
        { DEVICE_CHANGED_LAST_ERROR, "LastError" },
        { DEVICE_CHANGED_CURRENT_FREQUENCY, "CurrentFrequency" },
};

/* PropertiesChanged with the values of what changed and, invalidated, Requests. */
static int emit_changed(struct bus *b, struct manager_device *d, const char *path, unsigned mask) {
        static const sd_bus_vtable *entries[ELEMENTSOF(changed_map)];
        const sd_bus_vtable *props[ELEMENTSOF(changed_map)];
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(changed_map); i++) {
                if (!(mask & changed_map[i].bit))
                        continue;
                if (!entries[i])
                        entries[i] = bus_vtable_property(device_vtable, changed_map[i].name);
                if (!entries[i])
                        return -ENOENT;
                props[n++] = entries[i];
        }
        return bus_emit_properties_changed(
                b, path, IFACE_DEVICE, props, n, d, (mask & DEVICE_CHANGED_REQUESTS) ? "Requests" : NULL);
}

static int on_coalesce_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus *b = userdata;
        struct manager *m = b->manager;

        for (size_t i = 0; i < m->n_devices; i++) {
                struct device_data *dd = m->devices[i]->bus_data;
                if (dd && dd->current_pending)
                        device_emit_changes(b, m->devices[i], DEVICE_CHANGED_CURRENT_FREQUENCY);
        }
        return 0;
}

/*
 * A device polled every 10 ms may change its frequency at every tick: signalling each change
 * would cost the daemon and every listener on the bus a message per tick and device. Changes
 * found by polling are therefore signalled at once when none was in the last 100 ms, else held
 * back and the latest value sent when the 100 ms are over (never a value already sent).
 * Changes caused by methods and events are signalled at once. Returns the mask to send now.
 */
static unsigned coalesce_current(struct bus *b, struct manager_device *d, struct device_data *dd, unsigned mask) {
        uint64_t now;
        int r;

        if (!(mask & DEVICE_CHANGED_CURRENT_FREQUENCY))
                return mask;
        now = df_now_usec(CLOCK_MONOTONIC);
        if ((mask & DEVICE_CHANGED_BY_POLL) && now < dd->current_sent_usec + CURRENT_FREQUENCY_COALESCE_USEC) {
                dd->current_pending = true;
                if (!b->coalesce_timer) {
                        r = sd_event_add_time(
                                b->event, &b->coalesce_timer, CLOCK_MONOTONIC,
                                dd->current_sent_usec + CURRENT_FREQUENCY_COALESCE_USEC, 1000,
                                on_coalesce_timer, b);
                        if (r < 0)
                                return mask; /* cannot hold it back: send it now */
                        (void) sd_event_source_set_description(b->coalesce_timer, "current-frequency");
                } else if (sd_event_source_get_enabled(b->coalesce_timer, NULL) == 0) {
                        (void) sd_event_source_set_time(
                                b->coalesce_timer, dd->current_sent_usec + CURRENT_FREQUENCY_COALESCE_USEC);
                        (void) sd_event_source_set_enabled(b->coalesce_timer, SD_EVENT_ONESHOT);
                }
                return mask & ~DEVICE_CHANGED_CURRENT_FREQUENCY;
        }
        dd->current_pending = false;
        if (manager_device_current_frequency(d) == dd->current_sent && dd->current_sent_usec > 0)
                return mask & ~DEVICE_CHANGED_CURRENT_FREQUENCY; /* back where the last signal left it */
        dd->current_sent = manager_device_current_frequency(d);
        dd->current_sent_usec = now;
        return mask;
}

void device_emit_changes(struct bus *b, struct manager_device *d, unsigned mask) {
        struct device_data *dd;
        int r;

        if (b->batch_device == d) {
                b->batch_mask |= mask & ~DEVICE_CHANGED_BY_POLL;
                return;
        }
        dd = device_data_get(b, d);
        if (!dd)
                return;
        mask = coalesce_current(b, d, dd, mask) & ~DEVICE_CHANGED_BY_POLL;
        if (mask == 0)
                return;
        r = emit_changed(b, d, dd->path, mask);
        if (r < 0)
                log_debug_errno(r, "%s: cannot send PropertiesChanged: %m", d->name);
}

bool device_changes_hold(struct bus *b, struct manager_device *d) {
        if (b->batch_device)
                return false;
        b->batch_device = d;
        b->batch_mask = 0;
        return true;
}

void device_changes_release(struct bus *b, unsigned mask) {
        struct manager_device *d = b->batch_device;

        b->batch_device = NULL;
        if (d)
                device_emit_changes(b, d, b->batch_mask | mask);
        b->batch_mask = 0;
}
