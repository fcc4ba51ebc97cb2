/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the bus layer's files share: the context, clients, requests, authorization.
 *
 * The files call one way, each only those before it in this list: bus.c (small helpers),
 * bus-connect.c, then bus-senders.c, bus-client.c, bus-device-changes.c, bus-request-table.c,
 * bus-blame.c, bus-authorize.c, bus-request.c, bus-request-held.c, bus-device.c, bus-manager.c,
 * bus-large-reads.c, bus-logcontrol.c, bus-logind.c, bus-power-profiles.c, and bus-service.c on
 * top, which sets up the rest. Where a lower file must act on something a higher one owns (a
 * client leaving drops its requests; a lease expiring drops its request; a change signal needs the
 * device's vtable), bus-service.c hands it a function or a table in struct bus. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-names.h"
#include "bus.h"
#include "heap.h"
#include "idtable.h"
#include "manager.h"
#include "qos.h"

#define ACTION_REQUEST "org.devfreqd.devfreq1.request"
#define ACTION_SET_GOVERNOR "org.devfreqd.devfreq1.set-governor"
#define ACTION_CONFIGURE "org.devfreqd.devfreq1.configure"
#define ACTION_SET_PROFILE "org.devfreqd.devfreq1.set-profile"

#define REQUEST_STRING_MAX 256
#define CURRENT_FREQUENCY_COALESCE_USEC UINT64_C(100000)
#define PENDING_CHECKS_MAX 64
/* Large reads waiting (dbus/bus-large-reads.c): per connection, per uid, in all. */
#define LARGE_READS_PER_CONNECTION 2u
#define LARGE_READS_PER_USER 4u
#define LARGE_READS_MAX 16u
/* After a large read that took T, the next waits LARGE_READ_PACE × T. */
#define LARGE_READ_PACE 4

struct client;
struct request;
struct auth_check;
struct power_profiles;
struct name_watch;
struct large_read;

/* A QoS request object: owned by its client, linked on its device, keyed by id. */
struct request {
        struct bus *bus;
        struct client *client;
        struct manager_device *device;
        struct df_qos_request qos;
        uint64_t id;
        char *path;
        char *reason;
        char *application_id;
        uint32_t uid;
        uint32_t pid;
        uint64_t created_realtime;
        uint64_t expires_boottime; /* 0: no lease */
        uint64_t expires_realtime;
        size_t lease_index; /* the lease heap's slot: position + 1, 0 when not in it */

        struct request *client_prev, *client_next; /* the client's requests */
        struct request *device_prev, *device_next; /* the device's requests */
};

/* A bus connection that holds requests or waits for an authorization check. */
struct client {
        struct bus *bus;
        char *name; /* unique name */
        struct request *requests;
        size_t n_requests;
        size_t n_pending; /* authorization checks in flight */
        uint32_t uid;     /* the connection's effective uid, once known */
        uint64_t idle;    /* when it last became idle (no requests, no checks), 0 while in use */
        bool described;   /* command and unit were looked up (dbus/bus-blame.c) */
        char *command;    /* its process's command name, NULL when unknown */
        char *unit;       /* its process's systemd unit, NULL when none */
        struct client *prev, *next;
};

/* Idle clients whose records are kept, so a client that adds and removes requests in turn is not
 * described again (its command and unit) on every cycle. The oldest idle record goes first; a
 * record goes anyway when its client leaves. */
#define IDLE_CLIENTS_MAX 32

/* Credentials seen for a unique name (never reused on a bus), kept in a small cache. */
struct creds_entry {
        char *name;
        uint32_t euid;
        uint32_t pid;
        uint64_t used;
};
#define CREDS_CACHE_SIZE 128

struct bus {
        sd_bus *bus;
        sd_event *event;
        struct manager *manager;
        bus_lost_t lost;
        void *lost_userdata;
        sd_bus_slot *disconnected;
        sd_bus_slot *clients_gone; /* NameOwnerChanged of names lost (dbus/bus-client.c), NULL peer-to-peer */
        bool devices_changed;      /* a device was added or removed since Devices was last announced */
        char *profiles_announced;  /* the profiles' names as Profiles last announced them, a line each */
        /* Set by bus-service.c, so that the files below it need not call up: the device interface's
         * vtable (for the changes' signals), and what goes when a client leaves the bus. */
        const sd_bus_vtable *device_vtable;
        void (*client_leaving)(struct client *c);
        void (*drop_request)(struct request *q, bool reevaluate); /* request_drop(), for the leases */

        sd_event_source *coalesce_timer; /* armed only while a CurrentFrequency signal is held back */

        /* The change batch of the call being answered (device-changes.c). */
        unsigned batch_depth;
        sd_bus_message **batch_signals;
        size_t n_batch_signals, allocated_batch_signals;
        struct manager_device **batch_devices;
        size_t n_batch_devices, allocated_batch_devices;

        /* requests */
        struct df_idtable requests; /* by id */
        struct df_idgen ids;
        struct df_heap leases; /* the requests with a lease, the first to expire at the top */
        sd_event_source *lease_timer;
        size_t peak_requests;  /* the most live at once since the heap was last trimmed */
        sd_event_source *trim; /* a pending malloc_trim() after the last request went */

        /* the daemon's own requests (profiles): their client, outside the list and every limit */
        struct client *daemon_client;
        size_t n_held;

        /* following power-profiles-daemon (power-profiles.c) */
        struct power_profiles *power_profiles;

        /* clients */
        struct client *clients;
        size_t n_clients_with_requests;
        size_t n_idle_clients;
        uint64_t idle_clock;
        struct creds_entry creds[CREDS_CACHE_SIZE];
        uint64_t creds_clock;

        /* the services whose signals or answers are believed from their owner only (senders.c) */
        struct name_watch *polkit; /* its owner NULL: polkit absent */
        struct name_watch *logind;
        /* signals dropped because of their sender, and the pace of their debug lines */
        uint64_t dropped_signals;
        uint64_t drop_log_start;
        uint64_t drop_log_suppressed;
        unsigned drop_log_lines;

        /* GetManagedObjects and Introspect waiting for their turn (large-reads.c) */
        struct large_read *large_reads;
        unsigned n_large_reads;
        sd_event_source *large_read_event; /* idle priority: answers the oldest */
        sd_event_source *large_read_post;  /* times the answer, for the pause after it */
        sd_event_source *large_read_timer; /* the end of the pause */
        uint64_t large_read_started, large_read_not_before;

        /* authorization */
        struct auth_check *checks;
        size_t n_checks;
};

/* vtables (dbus/bus-manager.c, dbus/bus-device.c, dbus/bus-request.c, dbus/bus-logcontrol.c) */
extern const sd_bus_vtable manager_vtable[];
extern const sd_bus_vtable device_vtable[];
extern const sd_bus_vtable request_vtable[];
extern const sd_bus_vtable logcontrol_vtable[];
int device_object_find(
        sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
        sd_bus_error *error);
int device_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error);
int request_object_find(
        sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
        sd_bus_error *error);
int request_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error);

/* dbus/bus-device.c: forget the bus's bookkeeping of a device (the bus goes; the device stays). */
void device_bus_reset(struct manager_device *d);

/*
 * dbus/bus-device-changes.c: one change batch per call. Between bus_batch_begin() and
 * bus_batch_commit() (they nest; the outermost commit sends), the signals a call causes wait: first
 * its other signals in the order they were made (bus_send_signal()), then one PropertiesChanged
 * per device that changed, with everything that changed in it (Requests invalidated). Request
 * methods reply before they commit (AddRequest, Update and Remove: the round trip then costs one
 * message routed by the bus before the reply, not three; D-Bus keeps one sender's messages in
 * order, so a client still sees every signal, right after the reply), the other methods after.
 * Outside a batch, changes go at once, except CurrentFrequency changes found by polling, sent at
 * most once per CURRENT_FREQUENCY_COALESCE_USEC (the latest value, never one already sent).
 */
void bus_batch_begin(struct bus *b);
void bus_batch_commit(struct bus *b);
/* A device goes: drop its waiting changes. */
void bus_batch_forget(struct bus *b, struct manager_device *d);
void bus_batch_free(struct bus *b);
/* Send a signal of ours, or queue it in the open batch. */
int bus_send_signal(struct bus *b, sd_bus_message *m);
/* Report a DEVICE_CHANGED_* mask of a device: sent, queued in the batch, or held back. */
void device_emit_changes(struct bus *b, struct manager_device *d, unsigned mask);

/* dbus/bus-request-table.c: the leases' timer */
int request_lease_add(struct bus *b, struct request *q);
void request_lease_remove(struct bus *b, struct request *q);
void request_leases_free(struct bus *b);

/* dbus/bus-request-held.c: the daemon's own requests, for the active profile's floors and ceilings */
void held_requests_sync(struct manager *m, struct manager_device *d, void *userdata);
/* Drop one (its device goes, or the bus does). */
void held_requests_free(struct bus *b);

/* dbus/bus-request.c */
void request_link(struct request *q);
void request_unlink(struct request *q);
struct request *request_free(struct request *q);
int request_emit_removed(struct bus *b, struct request *q);
void request_emit_value_changed(struct request *q);
int request_add(
        struct bus *b, sd_bus_message *m, struct manager_device *d, enum df_qos_type type, uint64_t value,
        const char *reason, const char *application_id, uint64_t timeout_ms, sd_bus_error *error,
        struct request **ret);
/* The log line, InterfacesAdded and the device's Requests change for a new request. */
void request_announce(struct request *q);
void request_drop(struct request *r, bool reevaluate);
/* A request of the daemon's own (a profile's floor or ceiling): dropped without a client. */
void held_request_drop(struct request *q);
static inline bool request_is_held(const struct request *q) {
        return q->client && q->client == q->bus->daemon_client;
}
void requests_free_all(struct bus *b);
int request_validate_value(struct manager_device *d, enum df_qos_type type, uint64_t value, sd_bus_error *error);

/* dbus/bus-blame.c */
void blame_describe_client(struct client *c, uint32_t pid);
/* A request ends: remembered in its device's ring of ended ones (after its list let it go). */
void blame_request_ended(struct request *q);
int method_get_blame(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* Binding time of the ended requests GetBlame no longer lists, by type and owner. */
int method_get_forgotten_binding_time(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* dbus/bus-client.c */
/* The sender of a peer-to-peer connection's messages (there is no broker to name it). */
#define PEER_SENDER ""
const char *message_sender(sd_bus_message *m);
/* The record of a bus name, NULL if it has none. */
struct client *client_find(struct bus *b, const char *name);
/* The record of a bus name, made if it has none (it goes when the name leaves the bus). */
int client_acquire(struct bus *b, const char *name, struct client **ret);
/* Watch the bus driver for names lost, the clients' among them (nothing on a peer-to-peer bus). */
int clients_watch_start(struct bus *b);
void client_release_if_unused(struct client *c);
/* The requests held by all connections of one uid. */
size_t user_requests(struct bus *b, uint32_t uid);
int sender_creds(struct bus *b, sd_bus_message *m, uint32_t *ret_euid, uint32_t *ret_pid);
void clients_free_all(struct bus *b);

/* dbus/bus-authorize.c: 1 authorized, 0 in progress (the method runs again when polkit answers, the
 * handler must return 1 without replying), negative with `error` set when denied. */
int bus_authorize(struct bus *b, sd_bus_message *m, const char *action, sd_bus_error *error);
int polkit_watch_start(struct bus *b);
void auth_checks_cancel_client(struct client *client);
void auth_checks_free_all(struct bus *b);

/*
 * dbus/bus-senders.c: who may send the signals devfreqd listens to. A handler of a bus driver's signal
 * asks signal_from_driver(); a handler of a service's signal asks signal_from_owner() with the
 * watch of the service's name. Both drop the signal, with a rate-limited debug line, when its
 * sender is not the one. senders_filter_start() drops forged bus-driver signals before any match
 * sees them.
 */
typedef void (*name_owner_changed_t)(struct name_watch *w, const char *owner, void *userdata);
int senders_filter_start(struct bus *b);
bool signal_from_driver(struct bus *b, sd_bus_message *m);
bool signal_from_owner(struct bus *b, const struct name_watch *w, sd_bus_message *m);
/* Follow the owner of a well-known name: asked once now, then from the bus driver's signals;
 * `changed` (may be NULL) is told of every change after that. */
int name_watch_new(
        struct bus *b, const char *name, name_owner_changed_t changed, void *userdata, struct name_watch **ret);
const char *name_watch_owner(const struct name_watch *w);
struct name_watch *name_watch_free(struct name_watch *w);

/* dbus/bus-large-reads.c: GetManagedObjects and Introspect from callers other than root wait for a
 * moment when nothing else does, within a share per connection and per uid. */
int large_reads_start(struct bus *b);
void large_reads_free(struct bus *b);

/* dbus/bus-logind.c */
int logind_watch_start(struct bus *b);

/* dbus/bus-manager.c */
void manager_emit_profile_changed(struct manager *m, void *userdata);
void manager_emit_thermal_changed(struct manager *m, void *userdata);

/* dbus/bus-power-profiles.c: following power-profiles-daemon's ActiveProfile */
/* A connection to `address` ("system", "session" or a D-Bus address), started (bus-connect.c). */
int bus_connect(const char *address, sd_bus **ret);

int power_profiles_start(struct bus *b);
void power_profiles_free(struct bus *b);
/* After a reload (a manager listener): power-profiles-daemon's profile is read again, as at start,
 * when following is on, unless a client's choice is in force and following was on before. */
void power_profiles_reloaded(struct manager *m, void *userdata);

/* dbus/bus-service.c */
/*
 * PropertiesChanged on `path`: the values of the `n` properties (entries of the object's vtable,
 * read with their getters and `userdata`) and one `invalidated` name or NULL. The message
 * sd_bus_emit_properties_changed() sends, without its lookups of the object and of every property:
 * half the instructions of a signal sent at every frequency change and before every request reply.
 */
int bus_emit_properties_changed(
        struct bus *b, const char *path, const char *interface, const sd_bus_vtable *const *props, size_t n,
        void *userdata, const char *invalidated);
/* The vtable's entry of a property, NULL when it has none. */
const sd_bus_vtable *bus_vtable_property(const sd_bus_vtable *vtable, const char *name);

/*
 * Callers' strings in error messages: at most ECHO_MAX bytes of one, cut at a character boundary
 * and marked, so that a reply never carries a caller's megabyte back, with control characters
 * escaped (four bytes at most for one). `buf` holds the result.
 */
#define ECHO_MAX 64
#define ECHO_BUFFER (4 * ECHO_MAX + sizeof("…"))
const char *bus_echo(const char *s, char buf[static ECHO_BUFFER]);
/* Names given as arguments (governors, tunables, request types): InvalidArgs when longer than
 * NAME_ARG_MAX, checked before authorization so that no large call waits for polkit. */
#define NAME_ARG_MAX 64
int bus_check_name_arg(const char *what, const char *name, sd_bus_error *error);
