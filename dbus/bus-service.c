/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bus context: connection, objects, the name, the manager's listener, and disconnection. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-internal.h"
#include "escape.h"
#include "logging.h"
#include "macro.h"

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;

        log_error("Lost the connection to the bus");
        if (b->lost)
                b->lost(b, b->lost_userdata);
        return 0;
}

/* --- the manager's listener ------------------------------------------------------------------ */

/* The configured profiles' names, a line each; NULL when out of memory. */
static char *profile_names(const struct df_config *c) {
        char *s = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&s, &size);

        if (!f)
                return NULL;
        for (size_t i = 0; c && i < c->n_profiles; i++)
                fprintf(f, "%s\n", c->profiles[i].name);
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

/* Profiles changes only with a reload that changes the profiles' names: a device coming or going
 * comes here too. */
static void announce_profiles(struct bus *b, const struct df_config *c) {
        char *names = profile_names(c);

        if (names && b->profiles_announced && streq(names, b->profiles_announced)) {
                free(names);
                return;
        }
        free(b->profiles_announced);
        b->profiles_announced = names; /* NULL (out of memory): announced again the next time */
        (void) sd_bus_emit_properties_changed(b->bus, OBJECT_ROOT, IFACE_MANAGER, "Profiles", NULL);
}

/* Devices changes only when one was added, removed or vanished, not on every reload. */
static void on_devices_changed(struct manager *m, void *userdata) {
        struct bus *b = userdata;

        for (size_t i = 0; i < m->n_devices; i++) {
                struct manager_device *d = m->devices[i];
                if (d->bus.announced)
                        continue;
                d->bus.announced = true;
                b->devices_changed = true;
                (void) sd_bus_emit_interfaces_added(b->bus, d->bus.path, IFACE_DEVICE, NULL);
        }
        /* Start and reload come here: a reload may change the set of profiles. */
        announce_profiles(b, m->config);
        if (!b->devices_changed)
                return;
        b->devices_changed = false;
        (void) sd_bus_emit_properties_changed(b->bus, OBJECT_ROOT, IFACE_MANAGER, "Devices", NULL);
}

static void on_device_removing(struct manager *m, struct manager_device *d, void *userdata) {
        struct bus *b = userdata;

        while (d->bus.requests)
                request_drop(d->bus.requests, false);
        bus_batch_forget(b, d); /* nothing left to announce about it */
        /* While the object can still be resolved. */
        if (d->bus.announced) {
                (void) sd_bus_emit_interfaces_removed(b->bus, d->bus.path, IFACE_DEVICE, NULL);
                b->devices_changed = true;
        }
        device_bus_reset(d);
}

static void on_device_changed(struct manager *m, struct manager_device *d, unsigned mask, void *userdata) {
        device_emit_changes(userdata, d, mask);
}

/* A client left the bus: its pending authorization checks and its requests go with it. */
static void on_client_leaving(struct client *c) {
        auth_checks_cancel_client(c);
        while (c->requests)
                request_drop(c->requests, true);
}

static const struct manager_listener listener = {
        .devices_changed = on_devices_changed,
        .device_removing = on_device_removing,
        .device_changed = on_device_changed,
        .profile_changed = manager_emit_profile_changed,
        .thermal_changed = manager_emit_thermal_changed,
        .profile_requests = held_requests_sync,
        .reloaded = power_profiles_reloaded,
};

/* --- setup ------------------------------------------------------------------------------------ */

/* Objects below `prefix`, found by name and listed by an enumerator (devices, requests). */
static int add_object_class(
        struct bus *b, const char *prefix, const char *interface, const sd_bus_vtable *vtable,
        sd_bus_object_find_t find, sd_bus_node_enumerator_t enumerator) {
        int r;

        r = sd_bus_add_fallback_vtable(b->bus, NULL, prefix, interface, vtable, find, b);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(b->bus, NULL, prefix, enumerator, b);
}

static int register_objects(struct bus *b) {
        int r;

        r = sd_bus_add_object_vtable(b->bus, NULL, OBJECT_ROOT, IFACE_MANAGER, manager_vtable, b);
        if (r < 0)
                return r;
        r = sd_bus_add_object_manager(b->bus, NULL, OBJECT_ROOT);
        if (r < 0)
                return r;
        r = add_object_class(
                b, DEVICE_PREFIX, IFACE_DEVICE, device_vtable, device_object_find, device_node_enumerator);
        if (r < 0)
                return r;
        r = add_object_class(
                b, REQUEST_PREFIX, IFACE_REQUEST, request_vtable, request_object_find, request_node_enumerator);
        if (r < 0)
                return r;
        return sd_bus_add_object_vtable(
                b->bus, NULL, "/org/freedesktop/LogControl1", "org.freedesktop.LogControl1",
                logcontrol_vtable, b);
}

static struct bus *bus_alloc(sd_event *event, struct manager *m) {
        struct bus *b = calloc(1, sizeof(*b));

        if (!b)
                return NULL;
        b->event = sd_event_ref(event);
        b->manager = m;
        b->device_vtable = device_vtable;
        b->client_leaving = on_client_leaving;
        b->drop_request = request_drop;
        return b;
}

/* What both constructors do once b->bus is connected: objects, event loop, listener. */
static int bus_serve(struct bus *b, bool watch_polkit) {
        struct manager *m = b->manager;
        int r;

        r = sd_bus_match_signal(
                b->bus, &b->disconnected, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local",
                "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, b);
        if (r < 0)
                return log_error_errno(r, "Failed to watch for disconnection: %m");
        r = senders_filter_start(b);
        if (r < 0)
                return log_error_errno(r, "Failed to install the filter of forged signals: %m");
        r = clients_watch_start(b);
        if (r < 0)
                return log_error_errno(r, "Failed to watch for clients leaving the bus: %m");
        r = large_reads_start(b);
        if (r < 0)
                return log_error_errno(r, "Failed to install the filter of large reads: %m");
        r = register_objects(b);
        if (r < 0)
                return log_error_errno(r, "Failed to register the bus objects: %m");
        if (watch_polkit) {
                r = polkit_watch_start(b);
                if (r < 0)
                        return log_error_errno(r, "Failed to watch for polkit: %m");
                r = logind_watch_start(b);
                if (r < 0)
                        return log_error_errno(r, "Failed to watch for suspend and resume: %m");
        }
        if (!sd_bus_get_event(b->bus)) {
                r = sd_bus_attach_event(b->bus, b->event, SD_EVENT_PRIORITY_NORMAL);
                if (r < 0)
                        return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
        }
        manager_set_listener(m, &listener, b);
        for (size_t i = 0; i < m->n_devices; i++)
                m->devices[i]->bus.announced = true; /* nobody could have seen them before they were served */
        b->profiles_announced = profile_names(m->config); /* the same: what a first Get reads */
        /* The profile chosen at start holds its requests from now on. */
        manager_profile_resync(m);
        return 0;
}

int bus_new(
        sd_event *event, struct manager *m, const char *address, bus_lost_t lost, void *userdata,
        struct bus **ret) {
        struct bus *b;
        int r;

        b = bus_alloc(event, m);
        if (!b)
                return log_oom();
        b->lost = lost;
        b->lost_userdata = userdata;

        r = bus_connect(address, &b->bus);
        if (r < 0) {
                log_error_errno(r, "Failed to connect to the %s bus: %m", address);
                goto fail;
        }
        r = bus_serve(b, true);
        if (r < 0)
                goto fail;
        r = sd_bus_request_name(b->bus, BUS_NAME, 0);
        if (r < 0) {
                log_error_errno(r, "Failed to own the name %s: %m", BUS_NAME);
                goto fail;
        }
        (void) power_profiles_start(b);
        *ret = b;
        return 0;

fail:
        bus_free(b);
        return r;
}

int bus_new_with_connection(sd_event *event, struct manager *m, sd_bus *connection, struct bus **ret) {
        struct bus *b;
        int r;

        b = bus_alloc(event, m);
        if (!b)
                return log_oom();
        b->bus = sd_bus_ref(connection);
        r = bus_serve(b, false);
        if (r < 0) {
                bus_free(b);
                return r;
        }
        *ret = b;
        return 0;
}

struct bus *bus_free(struct bus *b) {
        if (!b)
                return NULL;
        if (b->manager && b->manager->listener_userdata == b) {
                manager_set_listener(b->manager, NULL, NULL);
                for (size_t i = 0; i < b->manager->n_devices; i++)
                        device_bus_reset(b->manager->devices[i]); /* the requests go below */
        }
        bus_batch_free(b);
        b->coalesce_timer = sd_event_source_disable_unref(b->coalesce_timer);
        b->trim = sd_event_source_disable_unref(b->trim);
        auth_checks_free_all(b);
        large_reads_free(b);
        power_profiles_free(b);
        requests_free_all(b);
        held_requests_free(b);
        clients_free_all(b);
        b->polkit = name_watch_free(b->polkit);
        b->logind = name_watch_free(b->logind);
        sd_bus_slot_unref(b->disconnected);
        sd_bus_slot_unref(b->clients_gone);
        if (b->bus) {
                sd_bus_flush(b->bus);
                sd_bus_detach_event(b->bus);
                sd_bus_close_unref(b->bus);
        }
        sd_event_unref(b->event);
        free(b->profiles_announced);
        free(b);
        return NULL;
}
