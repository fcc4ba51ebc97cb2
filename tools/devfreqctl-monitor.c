/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl monitor: one line per change, from PropertiesChanged and the ObjectManager's
 * InterfacesAdded/Removed, against a cache of every object's properties for the old values. */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "devfreqctl.h"

struct monitor {
        struct ctl *c;
        sd_event *event;
        struct ctl_objects objects;
        struct prop rules; /* the manager's ThermalRules as last seen */
};

static void monitor_clear(struct monitor *m) {
        prop_done(&m->rules);
        objects_clear(&m->objects);
}

static void monitor_done(struct monitor *m) {
        monitor_clear(m);
        sd_event_unref(m->event);
}

/* Who a line is about: "gpu" for a device, "gpu: request 123" for a request. */
static char *subject_of(struct monitor *m, const char *path, bool request) {
        _cleanup_free_ char *name = NULL, *device = NULL;
        struct ctl_object *o = objects_find(&m->objects, path);
        const char *device_path;
        struct ctl_object *d;
        char *s = NULL;

        if (object_name(path, &name) < 0)
                return strdup(path);
        if (!request)
                return o && *props_str(&o->props, "Name") ? strdup(props_str(&o->props, "Name")) :
                                                            TAKE_PTR(name);
        device_path = o ? props_str(&o->props, "Device") : "";
        d = objects_find(&m->objects, device_path);
        if (d && *props_str(&d->props, "Name"))
                device = strdup(props_str(&d->props, "Name"));
        else if (object_name(device_path, &device) < 0)
                device = strdup("?");
        if (!device || asprintf(&s, "%s: request %s", device, name) < 0)
                return NULL;
        return s;
}

/* A request's Value reads in its type's unit; everything else as `show` has it. */
static char *format_value(const struct ctl_object *o, const struct prop *p) {
        char *text = NULL, buf[32];

        if (o && o->request && streq(p->name, "Value") && streq(p->signature, "t"))
                return strdup(format_request_value(buf, props_str(&o->props, "Type"), p->num));
        if (prop_format(p, o ? props_num(&o->props, "ThermalCap") : 0, ", ", &text) < 0)
                return NULL;
        return text;
}

/* The rules as they are now, to tell trips and releases from what was (none on an older daemon). */
static void load_rules(struct monitor *m) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

        if (sd_bus_call_method(
                    m->c->bus, BUS_NAME, OBJECT_ROOT, IFACE_PROPERTIES, "Get", &error, &reply, "ss",
                    IFACE_MANAGER, "ThermalRules") >= 0)
                (void) prop_read_variant(reply, "ThermalRules", &m->rules);
}

/* Fill the cache; 0 when devfreqd is not on the bus (yet). */
static int load(struct monitor *m) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        monitor_clear(m);
        r = objects_load(&m->objects, m->c->bus, &error);
        if (r < 0)
                return ctl_bus_error(NULL, &error, r), -1;
        if (r > 0)
                load_rules(m);
        return r;
}

static const struct ctl_rule *rule_find(const struct prop *rules, const char *name) {
        for (size_t i = 0; i < rules->n; i++)
                if (streq(rules->rules[i].name, name))
                        return &rules->rules[i];
        return NULL;
}

/* A line for each rule that tripped, released, came or went since the rules were last seen. */
static int print_thermal_changes(struct monitor *m, const struct prop *now) {
        for (size_t i = 0; i < now->n; i++) {
                const struct ctl_rule *r = &now->rules[i], *was = rule_find(&m->rules, r->name);
                _cleanup_free_ char *line = NULL;

                if (was && was->tripped == r->tripped)
                        continue;
                line = format_rule(r);
                if (!line)
                        return -ENOMEM;
                printf("thermal %s%s\n", line, was ? "" : " (new rule)");
        }
        for (size_t i = 0; i < m->rules.n; i++)
                if (!rule_find(now, m->rules.rules[i].name))
                        printf("thermal %s: rule removed\n", m->rules.rules[i].name);
        return 0;
}

/* The manager's changes: thermal rules; ActiveProfile and ActiveProfileSource together, one line. */
static int print_manager_change(struct monitor *m, sd_bus_message *msg) {
        _cleanup_(props_done) struct props changed = {};
        const struct prop *rules;
        const char *name, *source;
        int r;

        if (props_read(msg, &changed) < 0)
                return 0;
        name = props_get(&changed, "ActiveProfile") ? props_str(&changed, "ActiveProfile") : NULL;
        source = props_str(&changed, "ActiveProfileSource");
        rules = props_get(&changed, "ThermalRules");
        if (rules) {
                r = print_thermal_changes(m, rules);
                if (r < 0)
                        return r;
                /* Kept as the rules last seen; `changed` is not looked up again. */
                prop_done(&m->rules);
                m->rules = TAKE_GENERIC(*(struct prop *) rules, struct prop, (struct prop){});
        }
        if (!name)
                return 0;
        if (*name)
                printf("profile: %s (%s)\n", name, source ? source : "");
        else
                printf("profile: none\n");
        return 0;
}

static int on_properties_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct monitor *m = userdata;
        const char *path = sd_bus_message_get_path(msg), *iface, *name;
        _cleanup_(props_done) struct props changed = {};
        _cleanup_free_ char *subject = NULL;
        struct ctl_object *o;
        bool request;
        int r;

        r = sd_bus_message_read_basic(msg, 's', &iface);
        if (r > 0 && streq(iface, IFACE_MANAGER))
                return print_manager_change(m, msg);
        if (r <= 0 || !path || !object_iface(iface))
                return 0;
        request = streq(iface, IFACE_REQUEST);
        if (props_read(msg, &changed) < 0 || sd_bus_message_enter_container(msg, 'a', "s") < 0)
                return 0;
        subject = subject_of(m, path, request);
        if (!subject)
                return -ENOMEM;
        o = objects_find(&m->objects, path);

        for (size_t i = 0; i < changed.n; i++) {
                struct prop *p = &changed.v[i];
                const struct prop *old = o ? props_get(&o->props, p->name) : NULL;
                _cleanup_free_ char *before = old ? format_value(o, old) : NULL;
                _cleanup_free_ char *after = format_value(o, p);

                if (!after)
                        return -ENOMEM;
                if (before && streq(before, after))
                        continue; /* we read the new value already */
                if (before)
                        printf("%s: %s %s -> %s\n", subject, p->name, before, after);
                else
                        printf("%s: %s %s\n", subject, p->name, after);
                if (o && props_set(&o->props, p) < 0)
                        return -ENOMEM;
        }
        /* Invalidated ones: Requests is told by the request lines; anything else in a word. */
        while (sd_bus_message_read_basic(msg, 's', &name) > 0)
                if (!streq(name, "Requests"))
                        printf("%s: %s changed\n", subject, name);
        return 0;
}

static int on_interface_added(const char *path, const char *iface, struct props *ps, void *userdata) {
        struct monitor *m = userdata;
        _cleanup_free_ char *subject = NULL;
        bool request = streq(iface, IFACE_REQUEST);
        char value[32];
        const char *reason;
        int r;

        r = objects_put(&m->objects, path, iface, ps);
        if (r <= 0)
                return r;
        subject = subject_of(m, path, request);
        if (!subject)
                return -ENOMEM;
        if (!request) {
                printf("%s: device added\n", subject);
                return 0;
        }
        ps = &objects_find(&m->objects, path)->props;
        reason = props_str(ps, "Reason");
        printf("%s added (%s %s by %s%s%s%s)\n", subject, props_str(ps, "Type"),
               format_request_value(value, props_str(ps, "Type"), props_num(ps, "Value")),
               props_str(ps, "Owner"), *reason ? ", reason \"" : "", reason, *reason ? "\"" : "");
        return 0;
}

static int on_interfaces_added(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *path;

        if (sd_bus_message_read_basic(msg, 'o', &path) > 0)
                (void) read_interfaces(msg, path, on_interface_added, userdata);
        return 0;
}

static int on_interfaces_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct monitor *m = userdata;
        _cleanup_free_ char *subject = NULL;
        const char *path;
        bool request;

        if (objects_removed(msg, &path, &request) <= 0)
                return 0;
        subject = subject_of(m, path, request);
        if (!subject)
                return -ENOMEM;
        printf("%s%s\n", subject, request ? " removed" : ": device removed");
        (void) objects_remove(&m->objects, path);
        return 0;
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct monitor *m = userdata;
        const char *name, *old, *new;

        if (sd_bus_message_read(msg, "sss", &name, &old, &new) <= 0 || !streq(name, BUS_NAME))
                return 0;
        if (!*new) {
                printf("devfreqd left the bus\n");
                monitor_clear(m);
                return 0;
        }
        printf("devfreqd is on the bus (%s)\n", new);
        if (load(m) < 0)
                return sd_event_exit(m->event, EXIT_DAEMON);
        return 0;
}

static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct monitor *m = userdata;
        return sd_event_exit(m->event, ctl_fail(NULL, "lost the connection to the bus"));
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct monitor *m = userdata;
        return sd_event_exit(m->event, EXIT_SUCCESS);
}

static int watch(struct monitor *m) {
        static const struct ctl_object_handlers handlers = {
                .properties_changed = on_properties_changed,
                .interfaces_added = on_interfaces_added,
                .interfaces_removed = on_interfaces_removed,
                .name_owner_changed = on_name_owner_changed,
                .disconnected = on_disconnected,
        };

        return ctl_watch_objects(m->c, &handlers, m);
}

int cmd_monitor(struct ctl *c) {
        _cleanup_(monitor_done) struct monitor m = { .c = c };
        sigset_t mask;
        int r;

        /* One line per change, as it happens, also into a pipe or a file. */
        setvbuf(stdout, NULL, _IOLBF, 0);

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return ctl_fail(NULL, "cannot block signals: %s", strerror(errno));
        r = sd_event_new(&m.event);
        if (r >= 0)
                r = sd_event_add_signal(m.event, NULL, SIGINT, on_signal, &m);
        if (r >= 0)
                r = sd_event_add_signal(m.event, NULL, SIGTERM, on_signal, &m);
        if (r >= 0)
                r = watch(&m);
        if (r >= 0)
                r = sd_bus_attach_event(c->bus, m.event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return ctl_fail(NULL, "cannot watch the bus: %s", strerror(-r));

        /* After the matches: a change between the two is then seen twice, never missed. */
        r = load(&m);
        if (r < 0)
                return EXIT_DAEMON;
        if (r == 0)
                fprintf(stderr, "devfreqd is not on the bus; waiting for it. Press Ctrl-C to stop.\n");
        else
                fprintf(stderr, "Monitoring devfreqd. Press Ctrl-C to stop.\n");

        r = sd_event_loop(m.event);
        if (r < 0)
                return ctl_fail(NULL, "the event loop failed: %s", strerror(-r));
        return r;
}
