/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* QoS request objects: adding and dropping them, and the org.devfreqd.Devfreq1.Request interface.
 * Their ids and the id table are lib/idtable.c, the leases' timer request-table.c. */

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "bus-internal.h"
#include "logging.h"
#include "qos-binding.h"
#include "units.h"

int request_validate_value(struct manager_device *d, enum df_qos_type type, uint64_t value, sd_bus_error *error) {
        if (type == DF_QOS_MAX_FREQUENCY && value == 0)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "A max-frequency request of 0 Hz would leave no frequency; use "
                        "18446744073709551615 for no ceiling");
        if (type == DF_QOS_LATENCY && value > UINT32_MAX)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "A latency request is at most 4294967295 us, not %" PRIu64, value);
        if (type == DF_QOS_LATENCY && !df_device_has_latency_data(d->dev))
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "%s has no latency data: configure opp = FREQ latency=DURATION lines first", d->name);
        return 0;
}

void request_link(struct request *q) {
        struct client *c = q->client;
        struct manager_device *d = q->device;

        q->client_next = c->requests;
        if (c->requests)
                c->requests->client_prev = q;
        c->requests = q;
        c->n_requests++;
        q->device_next = d->bus.requests;
        if (d->bus.requests)
                d->bus.requests->device_prev = q;
        d->bus.requests = q;
        d->bus.n_requests++;
}

void request_unlink(struct request *q) {
        struct client *c = q->client;
        struct manager_device *d = q->device;

        if (q->client_prev)
                q->client_prev->client_next = q->client_next;
        else
                c->requests = q->client_next;
        if (q->client_next)
                q->client_next->client_prev = q->client_prev;
        c->n_requests--;
        if (q->device_prev)
                q->device_prev->device_next = q->device_next;
        else
                d->bus.requests = q->device_next;
        if (q->device_next)
                q->device_next->device_prev = q->device_prev;
        d->bus.n_requests--;
}

struct request *request_free(struct request *q) {
        free(q->path);
        free(q->reason);
        free(q->application_id);
        free(q);
        return NULL;
}

/*
 * InterfacesAdded for a new request: the message sd_bus_emit_interfaces_added() sends, built here
 * with the vtable's own getters. sd-bus would first look up the object manager, the object and its
 * vtable again; every AddRequest waits for this signal before its reply.
 */
static int emit_request_added(struct bus *b, struct request *q) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_message_new_signal(
                b->bus, &m, OBJECT_ROOT, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded");
        if (r >= 0)
                r = sd_bus_message_append_basic(m, 'o', q->path);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sa{sv}}");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'e', "sa{sv}");
        if (r >= 0)
                r = sd_bus_message_append_basic(m, 's', IFACE_REQUEST);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        for (const sd_bus_vtable *v = request_vtable; r >= 0 && v->type != _SD_BUS_VTABLE_END; v++) {
                if (v->type != _SD_BUS_VTABLE_PROPERTY ||
                    (v->flags & (SD_BUS_VTABLE_HIDDEN | SD_BUS_VTABLE_PROPERTY_EXPLICIT)))
                        continue;
                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', v->x.property.member);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'v', v->x.property.signature);
                if (r >= 0)
                        r = v->x.property.get(
                                b->bus, q->path, IFACE_REQUEST, v->x.property.member, m, q, &error);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        sd_bus_error_free(&error);
        for (int i = 0; r >= 0 && i < 3; i++)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = bus_send_signal(b, m);
        return r;
}

/* InterfacesRemoved, built while the request still exists (it may be sent after its reply). */
int request_emit_removed(struct bus *b, struct request *q) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_signal(
                b->bus, &m, OBJECT_ROOT, "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved");
        if (r >= 0)
                r = sd_bus_message_append(m, "oas", q->path, 1, IFACE_REQUEST);
        if (r >= 0)
                r = bus_send_signal(b, m);
        return r;
}

/* The limits a client's new request must fit (the daemon's own requests count against none):
 * 0, or TooManyRequests with the limit named. */
static int check_limits(struct bus *b, struct client *client, uint32_t uid, sd_bus_error *error) {
        const struct df_config *c = b->manager->config;

        if (client && client->n_requests >= c->max_requests_per_client)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "This client holds %zu requests, the most allowed (max-requests-per-client)",
                        client->n_requests);
        if (df_idtable_count(&b->requests) - b->n_held >= c->max_requests)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "%zu requests are live, the most allowed (max-requests)",
                        df_idtable_count(&b->requests) - b->n_held);
        if ((!client || client->n_requests == 0) && b->n_clients_with_requests >= c->max_clients)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "%zu clients hold requests, the most allowed (max-clients)",
                        b->n_clients_with_requests);
        /* One user's connections together get a share, so that no user can take every slot. */
        if (uid != 0 && user_requests(b, uid) >= c->max_requests_per_user)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "uid %" PRIu32 " holds %zu requests, the most allowed (max-requests-per-user)", uid,
                        user_requests(b, uid));
        return 0;
}

int request_add(
        struct bus *b, sd_bus_message *m, struct manager_device *d, enum df_qos_type type, uint64_t value,
        const char *reason, const char *application_id, uint64_t timeout_ms, sd_bus_error *error,
        struct request **ret) {
        const char *sender = message_sender(m);
        struct client *client;
        struct request *q;
        uint64_t now = df_now_usec(CLOCK_BOOTTIME), now_realtime = df_now_usec(CLOCK_REALTIME);
        uint32_t uid = 0, pid = 0;
        int r;

        /* Both expiry clocks must hold it without wrapping (CLOCK_REALTIME is far ahead). */
        if (timeout_ms > (UINT64_MAX - MAX(now, now_realtime)) / 1000)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "Option 'timeout-ms' of %" PRIu64 " ms is too large", timeout_ms);
        r = sender_creds(b, m, &uid, &pid);
        if (r < 0)
                return r;
        r = check_limits(b, client_find(b, sender), uid, error);
        if (r < 0)
                return r;
        r = client_acquire(b, sender, &client);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot follow %s on the bus: %m", sender);
        client->uid = uid;
        blame_describe_client(client, pid);

        q = calloc(1, sizeof(*q));
        if (!q) {
                client_release_if_unused(client);
                return -ENOMEM;
        }
        q->bus = b;
        q->client = client;
        q->device = d;
        q->id = df_idgen_next(&b->ids);
        q->uid = uid;
        q->pid = pid;
        q->created_realtime = now_realtime;
        if (timeout_ms) {
                q->expires_boottime = now + timeout_ms * 1000;
                q->expires_realtime = q->created_realtime + timeout_ms * 1000;
        }
        q->reason = strdup(reason);
        q->application_id = strdup(application_id);
        if (!q->reason || !q->application_id || asprintf(&q->path, REQUEST_PREFIX "/%" PRIu64, q->id) < 0 ||
            df_idtable_insert(&b->requests, q->id, q) < 0) {
                request_free(q);
                client_release_if_unused(client);
                return -ENOMEM;
        }
        if (client->n_requests == 0)
                b->n_clients_with_requests++;
        request_link(q);
        b->peak_requests = MAX(b->peak_requests, df_idtable_count(&b->requests));

        /* The reply waits for this: the device is re-evaluated and written here. */
        r = manager_device_add_request(d, &q->qos, type, value);
        if (r >= 0 && timeout_ms)
                r = request_lease_add(b, q);
        if (r < 0) {
                if (df_qos_request_active(&q->qos))
                        (void) manager_device_remove_request(d, &q->qos);
                request_unlink(q);
                if (client->n_requests == 0)
                        b->n_clients_with_requests--;
                (void) df_idtable_remove(&b->requests, q->id);
                request_free(q);
                client_release_if_unused(client);
                return r;
        }

        *ret = q;
        return 0;
}

void request_announce(struct request *q) {
        struct manager_device *d = q->device;
        char f[DF_FREQ_STRING_MAX];
        int r;

        log_info(
                "%s: request %" PRIu64 " %s %s by %s (uid %" PRIu32 ", pid %" PRIu32 ")%s%s", d->name, q->id,
                df_qos_type_to_string(q->qos.type),
                q->qos.type == DF_QOS_LATENCY ? "" : df_format_frequency(f, q->qos.value), q->client->name,
                q->uid, q->pid, *q->reason ? ": " : "", q->reason);
        if (q->qos.type == DF_QOS_LATENCY)
                log_debug("%s: request %" PRIu64 " latency %" PRIu64 " us", d->name, q->id, q->qos.value);
        r = emit_request_added(q->bus, q);
        if (r < 0)
                log_debug_errno(
                        r, "%s: cannot send InterfacesAdded for request %" PRIu64 ": %m", d->name, q->id);
        /* After InterfacesAdded, so that whoever sees Requests change can resolve the new one. */
        device_emit_changes(q->bus, d, DEVICE_CHANGED_REQUESTS);
}

static int on_trim(sd_event_source *s, void *userdata) {
        struct bus *b = userdata;

        b->trim = sd_event_source_disable_unref(b->trim);
        /* The heap held every request of a burst; hand back what the last one left free. */
        (void) malloc_trim(0);
        return 0;
}

/* Once the last request is gone after a burst of them, give the freed memory back to the system,
 * from the event loop (a client leaving drops all its requests at once). */
static void memory_trim_later(struct bus *b) {
        if (b->trim || b->peak_requests < 256)
                return;
        b->peak_requests = 0;
        if (sd_event_add_defer(b->event, &b->trim, on_trim, b) < 0)
                b->trim = NULL;
}

/* A request of the daemon's own (a profile's) goes without a client to account it to. */
void held_request_drop(struct request *q) {
        struct bus *b = q->bus;

        (void) request_emit_removed(b, q);
        (void) df_idtable_remove(&b->requests, q->id);
        request_unlink(q);
        (void) df_qos_remove_request(&q->qos);
        blame_request_ended(q);
        b->n_held--;
        log_debug("%s: request %" PRIu64 " of %s removed", q->device->name, q->id, q->reason);
        request_free(q);
}

void request_drop(struct request *q, bool reevaluate) {
        struct bus *b = q->bus;
        struct manager_device *d = q->device;
        struct client *client = q->client;

        if (request_is_held(q))
                return held_request_drop(q);

        /* InterfacesRemoved, then the device's change and Requests in one PropertiesChanged. */
        bus_batch_begin(b);
        /* While the object can still be resolved. */
        (void) request_emit_removed(b, q);
        (void) df_idtable_remove(&b->requests, q->id);
        request_lease_remove(b, q);
        request_unlink(q);
        if (client->n_requests == 0)
                b->n_clients_with_requests--;
        if (reevaluate) {
                (void) manager_device_remove_request(d, &q->qos);
                device_emit_changes(b, d, DEVICE_CHANGED_REQUESTS);
        } else
                (void) df_qos_remove_request(&q->qos);
        blame_request_ended(q);
        log_debug("%s: request %" PRIu64 " removed", d->name, q->id);
        request_free(q);
        client_release_if_unused(client);
        if (df_idtable_count(&b->requests) == 0)
                memory_trim_later(b);
        bus_batch_commit(b);
}

void requests_free_all(struct bus *b) {
        struct request *q;

        request_leases_free(b);
        for (size_t i = 0; (q = df_idtable_next(&b->requests, &i));) {
                (void) df_qos_remove_request(&q->qos);
                request_free(q);
        }
        df_idtable_done(&b->requests);
}

/* --- the object ------------------------------------------------------------------------------- */

int request_object_find(
        sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
        sd_bus_error *error) {
        struct bus *b = userdata;
        const char *e = path + strlen(REQUEST_PREFIX);
        struct request *q;
        uint64_t id;

        if (strncmp(path, REQUEST_PREFIX "/", strlen(REQUEST_PREFIX) + 1) != 0 || df_safe_atou64(e + 1, &id) < 0)
                return 0;
        q = df_idtable_find(&b->requests, id);
        /* One path a request: ".../0123" parses as 123 but is no path of it. */
        if (q && streq(q->path, path)) {
                *found = q;
                return 1;
        }
        /* A request path that no longer (or never did) name a live request: the documented error. */
        if (id != 0 && !q) {
                char canonical[sizeof(REQUEST_PREFIX) + 24];
                snprintf(canonical, sizeof(canonical), REQUEST_PREFIX "/%" PRIu64, id);
                if (streq(canonical, path))
                        return sd_bus_error_setf(
                                error, ERROR_NO_SUCH_REQUEST,
                                "No request %" PRIu64 " (removed, expired, or its owner left the bus)", id);
        }
        return 0;
}

int request_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error) {
        struct bus *b = userdata;
        char **v = calloc(df_idtable_count(&b->requests) + 1, sizeof(char *));
        const struct request *q;
        size_t n = 0;

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; (q = df_idtable_next(&b->requests, &i));) {
                v[n] = strdup(q->path);
                if (!v[n]) {
                        for (size_t j = 0; j < n; j++)
                                free(v[j]);
                        free(v);
                        return -ENOMEM;
                }
                n++;
        }
        *nodes = v;
        return 0;
}

#define REQUEST_GETTER(fn)                                                                                   \
        static int fn(                                                                                       \
                sd_bus *bus, const char *path, const char *interface, const char *property,                  \
                sd_bus_message *reply, void *userdata, sd_bus_error *error)

REQUEST_GETTER(property_get_device) {
        struct request *q = userdata;

        return sd_bus_message_append(reply, "o", q->device->bus.path);
}

REQUEST_GETTER(property_get_type) {
        struct request *q = userdata;
        return sd_bus_message_append(reply, "s", df_qos_type_to_string(q->qos.type));
}

REQUEST_GETTER(property_get_value) {
        struct request *q = userdata;
        return sd_bus_message_append(reply, "t", q->qos.value);
}

REQUEST_GETTER(property_get_string) {
        struct request *q = userdata;
        return sd_bus_message_append(reply, "s", streq(property, "Reason") ? q->reason : q->application_id);
}

REQUEST_GETTER(property_get_owner) {
        struct request *q = userdata;
        return sd_bus_message_append(reply, "s", q->client->name);
}

REQUEST_GETTER(property_get_u32) {
        struct request *q = userdata;
        return sd_bus_message_append(reply, "u", streq(property, "UID") ? q->uid : q->pid);
}

REQUEST_GETTER(property_get_binding_time) {
        struct request *q = userdata;
        return sd_bus_message_append(reply, "t", df_qos_binding_time(&q->qos));
}

REQUEST_GETTER(property_get_usec) {
        struct request *q = userdata;
        return sd_bus_message_append(
                reply, "t", streq(property, "CreatedUsec") ? q->created_realtime : q->expires_realtime);
}

/* The owner and root manage a request; anyone else is told no, whatever they ask. */
static int check_owner(struct request *q, sd_bus_message *m, sd_bus_error *error) {
        uint32_t euid, pid;
        int r;

        if (request_is_held(q))
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_ACCESS_DENIED,
                        "Request %" PRIu64 " is the daemon's own (%s); only a profile switch changes it",
                        q->id, q->reason);
        if (streq(message_sender(m), q->client->name))
                return 0;
        r = sender_creds(q->bus, m, &euid, &pid);
        if (r < 0)
                return r;
        if (euid == 0)
                return 0;
        return sd_bus_error_setf(
                error, SD_BUS_ERROR_ACCESS_DENIED,
                "Request %" PRIu64 " belongs to %s; only its owner or root may change it", q->id,
                q->client->name);
}

void request_emit_value_changed(struct request *q) {
        static const sd_bus_vtable *value;

        if (!value)
                value = bus_vtable_property(request_vtable, "Value");
        /* BindingTime grows while it binds: invalidated with each change of the value. */
        if (value)
                (void) bus_emit_properties_changed(q->bus, q->path, IFACE_REQUEST, &value, 1, q, "BindingTime");
}

static int method_update(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct request *q = userdata;
        uint64_t value;
        int r;

        r = sd_bus_message_read(m, "t", &value);
        if (r < 0)
                return r;
        /* Whose request it is comes first: a caller who may not change it learns nothing of the
         * device from the value's checks. */
        r = check_owner(q, m, error);
        if (r < 0)
                return r;
        r = request_validate_value(q->device, q->qos.type, value, error);
        if (r < 0)
                return r;
        if (value == q->qos.value)
                return sd_bus_reply_method_return(m, NULL);
        bus_batch_begin(q->bus);
        r = manager_device_update_request(q->device, &q->qos, value);
        if (r >= 0)
                r = sd_bus_reply_method_return(m, NULL);
        request_emit_value_changed(q);
        bus_batch_commit(q->bus); /* after the reply (bus_batch_begin() says why) */
        log_debug("%s: request %" PRIu64 " updated to %" PRIu64, q->device->name, q->id, value);
        return r;
}

static int method_remove(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct request *q = userdata;
        struct bus *b = q->bus;
        int r;

        r = check_owner(q, m, error);
        if (r < 0)
                return r;
        bus_batch_begin(b);
        request_drop(q, true);
        r = sd_bus_reply_method_return(m, NULL);
        bus_batch_commit(b); /* after the reply (bus_batch_begin() says why) */
        return r;
}

const sd_bus_vtable request_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Device", "o", property_get_device, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Type", "s", property_get_type, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Value", "t", property_get_value, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Reason", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ApplicationId", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Owner", "s", property_get_owner, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("UID", "u", property_get_u32, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PID", "u", property_get_u32, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CreatedUsec", "t", property_get_usec, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ExpiresUsec", "t", property_get_usec, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY(
                "BindingTime", "t", property_get_binding_time, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_METHOD_WITH_ARGS(
                "Update", SD_BUS_ARGS("t", value), SD_BUS_NO_RESULT, method_update, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "Remove", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_remove, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
