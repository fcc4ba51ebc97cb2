/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a device's changes send: one change batch per call, and CurrentFrequency changes found by
 * polling held back to one signal per 100 ms. */

#include <assert.h>
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
        { DEVICE_CHANGED_THERMAL_CAP, "ThermalCap" },
};

/* PropertiesChanged with the values of what changed and, invalidated, Requests. */
static int emit_changed(struct bus *b, struct manager_device *d, unsigned mask) {
        static const sd_bus_vtable *entries[ELEMENTSOF(changed_map)];
        const sd_bus_vtable *props[ELEMENTSOF(changed_map)];
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(changed_map); i++) {
                if (!(mask & changed_map[i].bit))
                        continue;
                if (!entries[i])
                        entries[i] = bus_vtable_property(b->device_vtable, changed_map[i].name);
                if (!entries[i])
                        return -ENOENT;
                props[n++] = entries[i];
        }
        return bus_emit_properties_changed(
                b, d->bus.path, IFACE_DEVICE, props, n, d,
                (mask & DEVICE_CHANGED_REQUESTS) ? "Requests" : NULL);
}

static int on_coalesce_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus *b = userdata;
        struct manager *m = b->manager;

        for (size_t i = 0; i < m->n_devices; i++)
                if (m->devices[i]->bus.current_pending)
                        device_emit_changes(b, m->devices[i], DEVICE_CHANGED_CURRENT_FREQUENCY);
        return 0;
}

/*
 * A device polled every 10 ms may change its frequency at every tick: signalling each change
 * would cost the daemon and every listener on the bus a message per tick and device. Changes
 * found by polling are therefore signalled at once when none was in the last 100 ms, else held
 * back and the latest value sent when the 100 ms are over (never a value already sent).
 * Changes caused by methods and events are signalled at once. Returns the mask to send now.
 */
static unsigned coalesce_current(struct bus *b, struct manager_device *d, unsigned mask) {
        uint64_t now;
        int r;

        if (!(mask & DEVICE_CHANGED_CURRENT_FREQUENCY))
                return mask;
        now = df_now_usec(CLOCK_MONOTONIC);
        if ((mask & DEVICE_CHANGED_BY_POLL) &&
            now < d->bus.current_sent_usec + CURRENT_FREQUENCY_COALESCE_USEC) {
                d->bus.current_pending = true;
                if (!b->coalesce_timer) {
                        r = sd_event_add_time(
                                b->event, &b->coalesce_timer, CLOCK_MONOTONIC,
                                d->bus.current_sent_usec + CURRENT_FREQUENCY_COALESCE_USEC, 1000,
                                on_coalesce_timer, b);
                        if (r < 0)
                                return mask; /* cannot hold it back: send it now */
                        (void) sd_event_source_set_description(b->coalesce_timer, "current-frequency");
                } else if (sd_event_source_get_enabled(b->coalesce_timer, NULL) == 0) {
                        (void) sd_event_source_set_time(
                                b->coalesce_timer, d->bus.current_sent_usec + CURRENT_FREQUENCY_COALESCE_USEC);
                        (void) sd_event_source_set_enabled(b->coalesce_timer, SD_EVENT_ONESHOT);
                }
                return mask & ~DEVICE_CHANGED_CURRENT_FREQUENCY;
        }
        d->bus.current_pending = false;
        if (manager_device_current_frequency(d) == d->bus.current_sent && d->bus.current_sent_usec > 0)
                return mask & ~DEVICE_CHANGED_CURRENT_FREQUENCY; /* back where the last signal left it */
        d->bus.current_sent = manager_device_current_frequency(d);
        d->bus.current_sent_usec = now;
        return mask;
}

/* A device whose changes wait for the batch: at the end of the batch's list, once. */
static int batch_add_device(struct bus *b, struct manager_device *d) {
        int r;

        if (d->bus.in_batch)
                return 0;
        r = GREEDY_GROW(b->batch_devices, b->allocated_batch_devices, b->n_batch_devices + 1);
        if (r < 0)
                return r;
        b->batch_devices[b->n_batch_devices++] = d;
        d->bus.in_batch = true;
        return 0;
}

void device_emit_changes(struct bus *b, struct manager_device *d, unsigned mask) {
        int r;

        if (b->batch_depth > 0 && batch_add_device(b, d) >= 0) {
                d->bus.changes |= mask & ~DEVICE_CHANGED_BY_POLL;
                return;
        }
        mask = coalesce_current(b, d, mask) & ~DEVICE_CHANGED_BY_POLL;
        if (mask == 0)
                return;
        r = emit_changed(b, d, mask);
        if (r < 0)
                log_debug_errno(r, "%s: cannot send PropertiesChanged: %m", d->name);
}

int bus_send_signal(struct bus *b, sd_bus_message *m) {
        if (b->batch_depth > 0 &&
            GREEDY_GROW(b->batch_signals, b->allocated_batch_signals, b->n_batch_signals + 1) >= 0) {
                b->batch_signals[b->n_batch_signals++] = sd_bus_message_ref(m);
                return 0;
        }
        return sd_bus_send(b->bus, m, NULL); /* no batch, or no room: late beats lost */
}

void bus_batch_begin(struct bus *b) {
        b->batch_depth++;
}

void bus_batch_commit(struct bus *b) {
        assert(b->batch_depth > 0);
        if (--b->batch_depth > 0)
                return;
        for (size_t i = 0; i < b->n_batch_signals; i++) {
                (void) sd_bus_send(b->bus, b->batch_signals[i], NULL);
                sd_bus_message_unref(b->batch_signals[i]);
        }
        b->n_batch_signals = 0;
        for (size_t i = 0; i < b->n_batch_devices; i++) {
                struct manager_device *d = b->batch_devices[i];
                unsigned mask;

                if (!d)
                        continue; /* it went meanwhile */
                mask = d->bus.changes;
                d->bus.changes = 0;
                d->bus.in_batch = false;
                device_emit_changes(b, d, mask);
        }
        b->n_batch_devices = 0;
}

void bus_batch_forget(struct bus *b, struct manager_device *d) {
        for (size_t i = 0; d->bus.in_batch && i < b->n_batch_devices; i++)
                if (b->batch_devices[i] == d)
                        b->batch_devices[i] = NULL;
        d->bus.in_batch = false;
        d->bus.changes = 0;
}

void bus_batch_free(struct bus *b) {
        for (size_t i = 0; i < b->n_batch_signals; i++)
                sd_bus_message_unref(b->batch_signals[i]);
        for (size_t i = 0; i < b->n_batch_devices; i++)
                if (b->batch_devices[i])
                        bus_batch_forget(b, b->batch_devices[i]);
        free(b->batch_signals);
        free(b->batch_devices);
        b->batch_signals = NULL;
        b->batch_devices = NULL;
        b->n_batch_signals = b->n_batch_devices = 0;
        b->allocated_batch_signals = b->allocated_batch_devices = 0;
        b->batch_depth = 0;
}

/* PropertiesChanged with the values of `props` as their getters give them, through the batch. */
int bus_emit_properties_changed(
        struct bus *b, const char *path, const char *interface, const sd_bus_vtable *const *props, size_t n,
        void *userdata, const char *invalidated) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_message_new_signal(b->bus, &m, path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
        if (r >= 0)
                r = sd_bus_message_append_basic(m, 's', interface);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const char *name = props[i]->x.property.member;

                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', name);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'v', props[i]->x.property.signature);
                if (r >= 0)
                        r = props[i]->x.property.get(b->bus, path, interface, name, m, userdata, &error);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        sd_bus_error_free(&error);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "s");
        if (r >= 0 && invalidated)
                r = sd_bus_message_append_basic(m, 's', invalidated);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = bus_send_signal(b, m);
        return r;
}
