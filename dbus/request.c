/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* QoS request objects: unguessable never-reused ids, the id table, leases on one CLOCK_BOOTTIME
 * timer, and the org.devfreqd.Devfreq1.Request interface. */

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
#include "units.h"

uint64_t clock_now(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

/* --- ids: a keyed permutation of a counter (SipHash-2-4 rounds in a Feistel network), so every
 * id is unique for the daemon's life without remembering the old ones, and unguessable. */

static inline uint64_t rotl(uint64_t x, int b) {
        return (x << b) | (x >> (64 - b));
}

#define SIPROUND(v0, v1, v2, v3)                                                                             \
        do {                                                                                                 \
                v0 += v1;                                                                                    \
                v1 = rotl(v1, 13);                                                                           \
                v1 ^= v0;                                                                                    \
                v0 = rotl(v0, 32);                                                                           \
                v2 += v3;                                                                                    \
                v3 = rotl(v3, 16);                                                                           \
                v3 ^= v2;                                                                                    \
                v0 += v3;                                                                                    \
                v3 = rotl(v3, 21);                                                                           \
                v3 ^= v0;                                                                                    \
                v2 += v1;                                                                                    \
                v1 = rotl(v1, 17);                                                                           \
                v1 ^= v2;                                                                                    \
                v2 = rotl(v2, 32);                                                                           \
        } while (0)

/* SipHash-2-4 of one 64-bit word. */
static uint64_t siphash_u64(const uint64_t key[2], uint64_t m) {
        uint64_t v0 = key[0] ^ UINT64_C(0x736f6d6570736575), v1 = key[1] ^ UINT64_C(0x646f72616e646f6d);
        uint64_t v2 = key[0] ^ UINT64_C(0x6c7967656e657261), v3 = key[1] ^ UINT64_C(0x7465646279746573);
        uint64_t b = UINT64_C(8) << 56;

        v3 ^= m;
        SIPROUND(v0, v1, v2, v3);
        SIPROUND(v0, v1, v2, v3);
        v0 ^= m;
        v3 ^= b;
        SIPROUND(v0, v1, v2, v3);
        SIPROUND(v0, v1, v2, v3);
        v0 ^= b;
        v2 ^= 0xff;
        for (int i = 0; i < 4; i++)
                SIPROUND(v0, v1, v2, v3);
        return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t permute(const uint64_t key[2], uint64_t x) {
        uint32_t l = (uint32_t) (x >> 32), r = (uint32_t) x;

        for (uint64_t round = 0; round < 4; round++) {
                uint32_t f = (uint32_t) siphash_u64(key, (round << 32) | r);
                uint32_t t = r;
                r = l ^ f;
                l = t;
        }
        return ((uint64_t) l << 32) | r;
}

static uint64_t next_id(struct bus *b) {
        uint64_t id;

        if (b->id_key[0] == 0 && b->id_key[1] == 0 &&
            getrandom(b->id_key, sizeof(b->id_key), 0) != (ssize_t) sizeof(b->id_key)) {
                /* Without the random pool, fall back on time: unique still, less unguessable. */
                b->id_key[0] = clock_now(CLOCK_REALTIME);
                b->id_key[1] = clock_now(CLOCK_MONOTONIC) ^ (uint64_t) getpid();
        }
        do
                id = permute(b->id_key, b->id_counter++);
        while (id == 0);
        return id;
}

/* --- the id table: open addressing, linear probing, backward-shift deletion ------------------ */

static size_t slot_of(const struct bus *b, uint64_t id) {
        return (size_t) (id * UINT64_C(0x9e3779b97f4a7c15) >> 7) & (b->table_size - 1);
}

static int table_grow(struct bus *b) {
        size_t size = b->table_size ? b->table_size * 2 : 64;
        struct request **t = calloc(size, sizeof(*t)), **old = b->table;
        size_t old_size = b->table_size;

        if (!t)
                return -ENOMEM;
        b->table = t;
        b->table_size = size;
        for (size_t i = 0; i < old_size; i++) {
                if (!old[i])
                        continue;
                size_t s = slot_of(b, old[i]->id);
                while (t[s])
                        s = (s + 1) & (size - 1);
                t[s] = old[i];
        }
        free(old);
        return 0;
}

static int table_insert(struct bus *b, struct request *q) {
        size_t s;
        int r;

        if ((b->n_requests + 1) * 2 > b->table_size) {
                r = table_grow(b);
                if (r < 0)
                        return r;
        }
        s = slot_of(b, q->id);
        while (b->table[s])
                s = (s + 1) & (b->table_size - 1);
        b->table[s] = q;
        b->n_requests++;
        return 0;
}

static struct request *table_find(const struct bus *b, uint64_t id) {
        if (b->table_size == 0)
                return NULL;
        for (size_t s = slot_of(b, id); b->table[s]; s = (s + 1) & (b->table_size - 1))
                if (b->table[s]->id == id)
                        return b->table[s];
        return NULL;
}

static void table_remove(struct bus *b, struct request *q) {
        size_t mask = b->table_size - 1, s = slot_of(b, q->id);

        while (b->table[s] != q)
                s = (s + 1) & mask;
        b->table[s] = NULL;
        b->n_requests--;
        /* Pull later members of the probe run back over the hole. */
        for (size_t j = (s + 1) & mask; b->table[j]; j = (j + 1) & mask) {
                size_t home = slot_of(b, b->table[j]->id);
                if (((j - home) & mask) >= ((j - s) & mask)) {
                        b->table[s] = b->table[j];
                        b->table[j] = NULL;
                        s = j;
                }
        }
}

/* --- leases: a min-heap by expiry and one timer at its top ----------------------------------- */

static void lease_swap(struct bus *b, size_t i, size_t j) {
        struct request *t = b->leases[i];

        b->leases[i] = b->leases[j];
        b->leases[j] = t;
        b->leases[i]->lease_index = i + 1;
        b->leases[j]->lease_index = j + 1;
}

static void lease_sift(struct bus *b, size_t i) {
        while (i > 0 && b->leases[(i - 1) / 2]->expires_boottime > b->leases[i]->expires_boottime) {
                lease_swap(b, i, (i - 1) / 2);
                i = (i - 1) / 2;
        }
        for (;;) {
                size_t l = 2 * i + 1, r = l + 1, m = i;
                if (l < b->n_leases && b->leases[l]->expires_boottime < b->leases[m]->expires_boottime)
                        m = l;
                if (r < b->n_leases && b->leases[r]->expires_boottime < b->leases[m]->expires_boottime)
                        m = r;
                if (m == i)
                        return;
                lease_swap(b, i, m);
                i = m;
        }
}

static int on_lease_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void lease_rearm(struct bus *b) {
        int r;

        if (b->n_leases == 0) {
                if (b->lease_timer)
                        (void) sd_event_source_set_enabled(b->lease_timer, SD_EVENT_OFF);
                return;
        }
        if (!b->lease_timer) {
                r = sd_event_add_time(
                        b->event, &b->lease_timer, CLOCK_BOOTTIME, b->leases[0]->expires_boottime, 1000,
                        on_lease_timer, b);
                if (r < 0) {
                        log_error_errno(r, "Cannot arm the lease timer: %m");
                        return;
                }
                (void) sd_event_source_set_description(b->lease_timer, "request-leases");
                return;
        }
        (void) sd_event_source_set_time(b->lease_timer, b->leases[0]->expires_boottime);
        (void) sd_event_source_set_enabled(b->lease_timer, SD_EVENT_ONESHOT);
}

static int lease_add(struct bus *b, struct request *q) {
        if (b->n_leases == b->allocated_leases) {
                size_t n = b->allocated_leases ? b->allocated_leases * 2 : 16;
                struct request **v = realloc(b->leases, n * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                b->leases = v;
                b->allocated_leases = n;
        }
        b->leases[b->n_leases] = q;
        q->lease_index = ++b->n_leases;
        lease_sift(b, b->n_leases - 1);
        lease_rearm(b);
        return 0;
}

static void lease_remove(struct bus *b, struct request *q) {
        size_t i;

        if (q->lease_index == 0)
                return;
        i = q->lease_index - 1;
        q->lease_index = 0;
        b->n_leases--;
        if (i != b->n_leases) {
                b->leases[i] = b->leases[b->n_leases];
                b->leases[i]->lease_index = i + 1;
                lease_sift(b, i);
        }
        lease_rearm(b);
}

static int on_lease_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus *b = userdata;
        uint64_t now = clock_now(CLOCK_BOOTTIME);

        while (b->n_leases > 0 && b->leases[0]->expires_boottime <= now) {
                struct request *q = b->leases[0];
                log_info("%s: request %" PRIu64 " expired", q->device->name, q->id);
                request_drop(q, true);
        }
        lease_rearm(b);
        return 0;
}

/* --- adding and dropping ---------------------------------------------------------------------- */

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

static void link_request(struct request *q, struct device_data *dd) {
        struct client *c = q->client;

        q->client_next = c->requests;
        if (c->requests)
                c->requests->client_prev = q;
        c->requests = q;
        c->n_requests++;
        q->device_next = dd->requests;
        if (dd->requests)
                dd->requests->device_prev = q;
        dd->requests = q;
        dd->n_requests++;
}

static void unlink_request(struct request *q, struct device_data *dd) {
        struct client *c = q->client;

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
                dd->requests = q->device_next;
        if (q->device_next)
                q->device_next->device_prev = q->device_prev;
        dd->n_requests--;
}

static struct request *request_free(struct request *q) {
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
static int emit_request_removed(struct bus *b, struct request *q) {
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

int request_add(
        struct bus *b, sd_bus_message *m, struct manager_device *d, enum df_qos_type type, uint64_t value,
        const char *reason, const char *application_id, uint64_t timeout_ms, sd_bus_error *error,
        struct request **ret) {
        const struct df_config *c = b->manager->config;
        const char *sender = message_sender(m);
        struct device_data *dd = device_data_get(b, d);
        struct client *client;
        struct request *q;
        uint64_t now = clock_now(CLOCK_BOOTTIME), now_realtime = clock_now(CLOCK_REALTIME);
        uint32_t uid = 0, pid = 0;
        int r;

        if (!dd)
                return -ENOMEM;
        /* Both expiry clocks must hold it without wrapping (CLOCK_REALTIME is far ahead). */
        if (timeout_ms > (UINT64_MAX - MAX(now, now_realtime)) / 1000)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "Option 'timeout-ms' of %" PRIu64 " ms is too large", timeout_ms);
        client = client_get(b, sender, false);
        if (client && client->n_requests >= c->max_requests_per_client)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "This client holds %zu requests, the most allowed (max-requests-per-client)",
                        client->n_requests);
        if (b->n_requests >= c->max_requests)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "%zu requests are live, the most allowed (max-requests)", b->n_requests);
        if ((!client || client->n_requests == 0) && b->n_clients_with_requests >= c->max_clients)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "%zu clients hold requests, the most allowed (max-clients)",
                        b->n_clients_with_requests);
        r = sender_creds(b, m, &uid, &pid);
        if (r < 0)
                return r;
        /* One user's connections together get a share, so that no user can take every slot. */
        if (uid != 0 && user_requests(b, uid) >= c->max_requests_per_user)
                return sd_bus_error_setf(
                        error, ERROR_TOO_MANY_REQUESTS,
                        "uid %" PRIu32 " holds %zu requests, the most allowed (max-requests-per-user)", uid,
                        user_requests(b, uid));
        client = client_get(b, sender, true);
        if (!client)
                return -ENOMEM;
        client->uid = uid;

        q = calloc(1, sizeof(*q));
        if (!q) {
                client_release_if_unused(client);
                return -ENOMEM;
        }
        q->bus = b;
        q->client = client;
        q->device = d;
        q->id = next_id(b);
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
            table_insert(b, q) < 0) {
                request_free(q);
                client_release_if_unused(client);
                return -ENOMEM;
        }
        if (client->n_requests == 0)
                b->n_clients_with_requests++;
        link_request(q, dd);
        b->peak_requests = MAX(b->peak_requests, b->n_requests);

        /* The reply waits for this: the device is re-evaluated and written here. */
        r = manager_device_add_request(d, &q->qos, type, value);
        if (r >= 0 && timeout_ms)
                r = lease_add(b, q);
        if (r < 0) {
                if (df_qos_request_active(&q->qos))
                        (void) manager_device_remove_request(d, &q->qos);
                unlink_request(q, dd);
                if (client->n_requests == 0)
                        b->n_clients_with_requests--;
                table_remove(b, q);
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

void request_drop(struct request *q, bool reevaluate) {
        struct bus *b = q->bus;
        struct manager_device *d = q->device;
        struct device_data *dd = d->bus_data;
        struct client *client = q->client;

        /* InterfacesRemoved while the object can still be resolved. */
        (void) emit_request_removed(b, q);
        table_remove(b, q);
        lease_remove(b, q);
        unlink_request(q, dd);
        if (client->n_requests == 0)
                b->n_clients_with_requests--;
        if (reevaluate) {
                /* The device's change and Requests in one PropertiesChanged. */
                bool held = device_changes_hold(b, d);

                (void) manager_device_remove_request(d, &q->qos);
                if (held)
                        device_changes_release(b, DEVICE_CHANGED_REQUESTS);
                else
                        device_emit_changes(b, d, DEVICE_CHANGED_REQUESTS);
        } else
                (void) df_qos_remove_request(&q->qos);
        log_debug("%s: request %" PRIu64 " removed", d->name, q->id);
        request_free(q);
        client_release_if_unused(client);
        if (b->n_requests == 0)
                memory_trim_later(b);
}

void requests_free_all(struct bus *b) {
        for (size_t i = 0; i < b->table_size; i++) {
                struct request *q = b->table[i];
                if (!q)
                        continue;
                (void) df_qos_remove_request(&q->qos);
                request_free(q);
        }
        free(b->table);
        b->table = NULL;
        b->table_size = b->n_requests = 0;
        free(b->leases);
        b->leases = NULL;
        b->n_leases = b->allocated_leases = 0;
        b->lease_timer = sd_event_source_disable_unref(b->lease_timer);
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
        q = table_find(b, id);
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
        char **v = calloc(b->n_requests + 1, sizeof(char *));
        size_t n = 0;

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < b->table_size; i++) {
                if (!b->table[i])
                        continue;
                v[n] = strdup(b->table[i]->path);
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
        struct device_data *dd = device_data_get(q->bus, q->device);

        return dd ? sd_bus_message_append(reply, "o", dd->path) : -ENOMEM;
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

REQUEST_GETTER(property_get_usec) {
        struct request *q = userdata;
        return sd_bus_message_append(
                reply, "t", streq(property, "CreatedUsec") ? q->created_realtime : q->expires_realtime);
}

/* The owner and root manage a request; anyone else is told no, whatever they ask. */
static int check_owner(struct request *q, sd_bus_message *m, sd_bus_error *error) {
        uint32_t euid, pid;
        int r;

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

static void emit_value_changed(struct request *q) {
        static const sd_bus_vtable *value;

        if (!value)
                value = bus_vtable_property(request_vtable, "Value");
        if (value)
                (void) bus_emit_properties_changed(q->bus, q->path, IFACE_REQUEST, &value, 1, q, NULL);
}

static int method_update(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct request *q = userdata;
        uint64_t value;
        bool held;
        int r;

        r = sd_bus_message_read(m, "t", &value);
        if (r < 0)
                return r;
        r = request_validate_value(q->device, q->qos.type, value, error);
        if (r < 0)
                return r;
        r = check_owner(q, m, error);
        if (r < 0)
                return r;
        if (value == q->qos.value)
                return sd_bus_reply_method_return(m, NULL);
        held = device_changes_hold(q->bus, q->device);
        r = manager_device_update_request(q->device, &q->qos, value);
        if (r >= 0)
                r = sd_bus_reply_method_return(m, NULL);
        /* The change signals follow the reply (bus_send_signal() says why). */
        emit_value_changed(q);
        if (held)
                device_changes_release(q->bus, 0);
        log_debug("%s: request %" PRIu64 " updated to %" PRIu64, q->device->name, q->id, value);
        return r;
}

static int method_remove(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct request *q = userdata;
        struct manager_device *d;
        struct bus *b;
        bool held;
        int r;

        r = check_owner(q, m, error);
        if (r < 0)
                return r;
        b = q->bus;
        d = q->device;
        held = device_changes_hold(b, d);
        bus_defer_signals(b);
        request_drop(q, true);
        r = sd_bus_reply_method_return(m, NULL);
        /* The change signals follow the reply (bus_send_signal() says why). */
        bus_flush_signals(b);
        if (held)
                device_changes_release(b, 0);
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
        SD_BUS_METHOD_WITH_ARGS(
                "Update", SD_BUS_ARGS("t", value), SD_BUS_NO_RESULT, method_update, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "Remove", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_remove, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
