/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the files of devfreqctl share: the invocation, bus helpers, decoded properties, JSON. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "macro.h"

/* Exit statuses: the daemon or the bus said no, or the command line is wrong. */
#define EXIT_DAEMON 1
#define EXIT_USAGE 2

/* One invocation: the global options, the command's operands and options. */
struct ctl {
        sd_bus *bus;
        const char *bus_address; /* system, session or an address */
        bool json;
        const char *reason;
        uint64_t timeout_ms; /* 0: none */
        char **args;         /* operands after the command name */
        size_t n_args;
        char **command; /* hold: what follows "--" */
        /* The command's values, parsed before the bus is reached (set-frequency, set-tunable, opp,
         * request, hold): */
        const char *type; /* request, hold: min-frequency, max-frequency or latency */
        uint64_t value;   /* a frequency, Hz; a tunable's value; a latency, us */
        bool enable;      /* opp */
};

/* tools/devfreqctl-props.c: property values as decoded from the bus. */
struct ctl_opp {
        uint64_t freq;
        uint32_t microvolt;
        uint32_t latency_us;
        bool enabled;
};

/* A thermal rule, as ThermalRules a(ssbtx) carries it. */
struct ctl_rule {
        char *name;
        char *zone;
        bool tripped;
        uint64_t cap;         /* Hz */
        int64_t millicelsius; /* the last reading */
};

struct prop {
        char *name;
        char *signature;
        uint64_t num;           /* t, u, b */
        char *str;              /* s, o */
        char **strv;            /* as, ao; the keys of a{su} */
        uint64_t *nums;         /* at; the values of a{su} */
        struct ctl_opp *opps;   /* a(tuub) */
        struct ctl_rule *rules; /* a(ssbtx) */
        size_t n;
};

struct props {
        struct prop *v;
        size_t n;
};

int prop_read_variant(sd_bus_message *m, const char *name, struct prop *ret);
void prop_done(struct prop *p);
int props_read(sd_bus_message *m, struct props *ret);
int props_set(struct props *ps, struct prop *p);
void props_done(struct props *ps);
const struct prop *props_get(const struct props *ps, const char *name);
uint64_t props_num(const struct props *ps, const char *name);
const char *props_str(const struct props *ps, const char *name);
int prop_format(const struct prop *p, uint64_t cap, const char *sep, char **ret);
int object_name(const char *path, char **ret);
/* Whether an interface is one of devfreqd's objects: Device or Request. */
bool object_iface(const char *iface);
const char *format_request_value(char buf[static 32], const char *type, uint64_t value);
typedef int (*managed_object_cb)(const char *path, const char *iface, struct props *ps, void *userdata);
int read_interfaces(sd_bus_message *m, const char *path, managed_object_cb cb, void *userdata);
int read_managed_objects(sd_bus_message *m, managed_object_cb cb, void *userdata);

/* tools/devfreqctl-objects.c: the daemon's device and request objects by path, for the commands
 * that follow them (monitor, top). */
struct ctl_object {
        char *path;
        bool request; /* a request, else a device */
        bool stale;   /* top: changed, read again before the next redraw */
        struct props props;
};

/* A pointer into `v` holds until the next put, remove, load or clear. */
struct ctl_objects {
        struct ctl_object *v;
        size_t n;
};

void objects_clear(struct ctl_objects *s);
struct ctl_object *objects_find(const struct ctl_objects *s, const char *path);
/* Takes *ps: 1, 0 for an interface other than Device and Request (not kept), or -ENOMEM. */
int objects_put(struct ctl_objects *s, const char *path, const char *iface, struct props *ps);
/* Whether the object was there. */
bool objects_remove(struct ctl_objects *s, const char *path);
/* The cache anew from GetManagedObjects: 1, 0 when devfreqd is not on the bus (yet), or a negative
 * errno (*error says why when the bus did). */
int objects_load(struct ctl_objects *s, sd_bus *bus, sd_bus_error *error);
/* InterfacesRemoved: 1 when a Device or Request interface went, with the object's path (in `msg`)
 * and which of the two; 0 for other interfaces, a negative errno for a bad message. */
int objects_removed(sd_bus_message *msg, const char **ret_path, bool *ret_request);

/* tools/devfreqctl.c */
/* The bus of --bus into c->bus: 0, or the exit status after saying why (EXIT_USAGE for an
 * address sd-bus cannot parse). */
int ctl_connect(struct ctl *c);
int ctl_bus_error(const char *subject, const sd_bus_error *error, int r);
int ctl_fail(const char *subject, const char *fmt, ...) _printf_(2, 3);
int ctl_usage(const char *fmt, ...) _printf_(1, 2);
int ctl_device_path(struct ctl *c, const char *name, char **ret);
/* GetAll of `iface` on `path`: 0, or a negative errno after saying why on stderr. */
int ctl_get_all(struct ctl *c, const char *subject, const char *path, const char *iface, struct props *ret);
/* Follow every object of the daemon: PropertiesChanged under its root, InterfacesAdded and
 * InterfacesRemoved, the name's owner and the connection (ctl_watch_daemon()). */
struct ctl_object_handlers {
        sd_bus_message_handler_t properties_changed, interfaces_added, interfaces_removed;
        sd_bus_message_handler_t name_owner_changed, disconnected;
};
int ctl_watch_objects(struct ctl *c, const struct ctl_object_handlers *h, void *userdata);
/* Matches for the daemon's name changing owner (NameOwnerChanged, arg0 BUS_NAME: it came or left)
 * and for the connection's end (Disconnected), both to `userdata`, for as long as the bus lives. */
int ctl_watch_daemon(
        struct ctl *c, sd_bus_message_handler_t on_name_owner_changed,
        sd_bus_message_handler_t on_disconnected, void *userdata);

/* tools/devfreqctl-json.c: a streaming writer, pretty-printed, one document. */
#define JSON_DEPTH_MAX 16

struct json {
        FILE *f;
        unsigned depth;
        bool after_key;
        bool first[JSON_DEPTH_MAX];
        bool inline_[JSON_DEPTH_MAX];
};

void json_init(struct json *j, FILE *f);
void json_key(struct json *j, const char *key);
void json_begin_object(struct json *j, bool inline_);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, bool inline_);
void json_end_array(struct json *j);
void json_string(struct json *j, const char *s);
void json_uint(struct json *j, uint64_t v);
void json_int(struct json *j, int64_t v);
void json_bool(struct json *j, bool b);
int json_finish(struct json *j);
void json_prop(struct json *j, const struct prop *p);
void json_props(struct json *j, const struct props *ps);

/* A rule in words: "gpu-hot: gpu-thermal at 86 C, tripped, cap 400 MHz". Caller frees. */
char *format_rule(const struct ctl_rule *r);

/* tools/devfreqctl-thermal.c */
int cmd_thermal(struct ctl *c);
/* The names of the tripped rules whose cap is `cap` and that are owners in the device's blame
 * (the rules covering it: ThermalRules does not say which devices a rule covers), joined by
 * ", ": NULL with none. Caller frees. */
struct ctl_blame_entry;
char *
ctl_capping_rules(const struct prop *rules, uint64_t cap, const struct ctl_blame_entry *blame, size_t n_blame);

/* tools/devfreqctl-show.c */
int cmd_status(struct ctl *c);
int cmd_show(struct ctl *c);
int cmd_requests(struct ctl *c);
int cmd_stats(struct ctl *c);

/* tools/devfreqctl-request.c */
int cmd_request(struct ctl *c);
int cmd_hold(struct ctl *c);

/* tools/devfreqctl-profile.c */
int cmd_profile(struct ctl *c);
int parse_profile(struct ctl *c);
/* The active profile and its source as one phrase ("power-saver (client)", "none"). Caller frees. */
int ctl_profile_line(struct ctl *c, char **ret);
/* The same from the manager's properties read already. */
int ctl_profile_phrase(const struct props *manager, char **ret);

/* tools/devfreqctl-blame.c */
/* One entry of GetBlame; the strings point into the reply. */
struct ctl_blame_entry {
        uint64_t id; /* 0: ended */
        const char *type;
        uint32_t uid;
        const char *unit, *command, *reason;
        uint64_t value, binding_usec;
};
int ctl_get_blame(
        struct ctl *c, const char *path, sd_bus_error *error, sd_bus_message **ret_reply,
        struct ctl_blame_entry **ret, size_t *ret_n);
const char *ctl_format_human_duration(char buf[static 32], uint64_t usec);
int cmd_blame(struct ctl *c);

/* tools/devfreqctl-metrics.c */
int cmd_metrics(struct ctl *c);

/* tools/devfreqctl-monitor.c */
int cmd_monitor(struct ctl *c);

/* tools/devfreqctl-top.c */
int cmd_top(struct ctl *c);
