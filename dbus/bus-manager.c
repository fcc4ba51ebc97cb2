/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The org.devfreqd.Devfreq1.Manager object: device lookup, Reload(), profiles, daemon-wide properties. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "bus-internal.h"
#include "logging.h"

static int method_list_devices(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct bus *b = userdata;
        struct manager *mgr = b->manager;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(so)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < mgr->n_devices; i++) {
                r = sd_bus_message_append(reply, "(so)", mgr->devices[i]->name, mgr->devices[i]->bus.path);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_device(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        struct manager_device *d;
        char e[ECHO_BUFFER];
        const char *name;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        d = manager_find_device(b->manager, name);
        if (!d)
                return sd_bus_error_setf(
                        error, ERROR_NO_SUCH_DEVICE, "No device '%s' (see ListDevices)", bus_echo(name, e));
        return sd_bus_reply_method_return(m, "o", d->bus.path);
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *text = NULL, *status = NULL;
        struct bus *b = userdata;
        int r;

        r = bus_authorize(b, m, ACTION_CONFIGURE, error);
        if (r <= 0)
                return r < 0 ? r : 1;

        log_info("Reload requested over the bus");
        /* Announced like a SIGHUP reload: RELOADING=1 before, READY=1 after. */
        (void) sd_notify(false, "RELOADING=1\nSTATUS=Reloading the configuration");
        bus_batch_begin(b);
        r = manager_reload(b->manager, &text);
        bus_batch_commit(b); /* before the reply */
        status = manager_status(b->manager);
        (void) sd_notifyf(false, "READY=1\nSTATUS=%s", strempty(status));
        if (r < 0)
                return sd_bus_error_setf(
                        error, ERROR_INVALID_CONFIGURATION, "%s",
                        text ? text : "the configuration could not be reloaded");
        return sd_bus_reply_method_return(m, NULL);
}

static int property_get_version(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

/* Governors and Profiles: the names of the governors devfreqd has, of the profiles configured. */
static int property_get_names(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        const struct df_config *c = b->manager->config;
        bool governors = streq(property, "Governors");
        size_t n = governors ? df_governors_count : c ? c->n_profiles : 0;
        int r = sd_bus_message_open_container(reply, 'a', "s");

        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "s", governors ? df_governors[i]->name : c->profiles[i].name);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int property_get_dry_run(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;

        return sd_bus_message_append(reply, "b", b->manager->dry_run);
}

static int property_get_devices(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "o");

        for (size_t i = 0; r >= 0 && i < b->manager->n_devices; i++)
                r = sd_bus_message_append(reply, "o", b->manager->devices[i]->bus.path);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int method_set_profile(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        char e[ECHO_BUFFER];
        const char *name;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        if (*name) {
                r = bus_check_name_arg("profile", name, error);
                if (r < 0)
                        return r;
        }
        r = bus_authorize(b, m, ACTION_SET_PROFILE, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        bus_batch_begin(b);
        r = manager_set_profile(b->manager, name, PROFILE_SOURCE_CLIENT);
        bus_batch_commit(b); /* before the reply */
        if (r == -ENOENT)
                return sd_bus_error_setf(
                        error, ERROR_NO_SUCH_PROFILE, "No profile '%s' (see Profiles)", bus_echo(name, e));
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

static int method_get_profile(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct bus *b = userdata;
        const struct df_config_profile *p;
        char e[ECHO_BUFFER];
        const char *name;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        p = df_config_find_profile(b->manager->config, name);
        if (!p)
                return sd_bus_error_setf(
                        error, ERROR_NO_SUCH_PROFILE, "No profile '%s' (see Profiles)", bus_echo(name, e));
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sss)");
        for (size_t i = 0; r >= 0 && i < p->n_lines; i++)
                r = sd_bus_message_append(
                        reply, "(sss)", p->lines[i].device ?: "*", p->lines[i].key, p->lines[i].value);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int property_get_active_profile(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;

        if (streq(property, "ActiveProfile"))
                return sd_bus_message_append(reply, "s", strempty(b->manager->profile));
        return sd_bus_message_append(reply, "s", manager_profile_source_to_string(b->manager->profile_source));
}

/* ActiveProfile and ActiveProfileSource, with their values. */
void manager_emit_profile_changed(struct manager *m, void *userdata) {
        struct bus *b = userdata;
        const sd_bus_vtable *props[] = {
                bus_vtable_property(manager_vtable, "ActiveProfile"),
                bus_vtable_property(manager_vtable, "ActiveProfileSource"),
        };

        if (props[0] && props[1])
                (void) bus_emit_properties_changed(b, OBJECT_ROOT, IFACE_MANAGER, props, 2, b, NULL);
}

/* a(ssbtx): name, zone, tripped, cap in Hz, last temperature in millidegrees (0 before any). */
static int property_get_thermal_rules(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        struct manager *m = b->manager;
        int r = sd_bus_message_open_container(reply, 'a', "(ssbtx)");

        for (size_t i = 0; r >= 0 && i < m->n_rules; i++) {
                const struct thermal_rule *t = m->rules[i];
                r = sd_bus_message_append(
                        reply, "(ssbtx)", t->config->name, t->config->zone, (int) t->state.tripped,
                        t->config->max_freq, t->state.temp);
        }
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

void manager_emit_thermal_changed(struct manager *m, void *userdata) {
        struct bus *b = userdata;
        const sd_bus_vtable *props[] = { bus_vtable_property(manager_vtable, "ThermalRules") };

        if (props[0])
                (void) bus_emit_properties_changed(b, OBJECT_ROOT, IFACE_MANAGER, props, 1, b, NULL);
}

const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Governors", "as", property_get_names, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DryRun", "b", property_get_dry_run, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Devices", "ao", property_get_devices, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Profiles", "as", property_get_names, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "ActiveProfile", "s", property_get_active_profile, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "ActiveProfileSource", "s", property_get_active_profile, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "ThermalRules", "a(ssbtx)", property_get_thermal_rules, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS(
                "ListDevices", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(so)", devices), method_list_devices,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "GetDevice", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", device), method_get_device,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "SetProfile", SD_BUS_ARGS("s", name), SD_BUS_NO_RESULT, method_set_profile,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "GetProfile", SD_BUS_ARGS("s", name), SD_BUS_RESULT("a(sss)", settings), method_get_profile,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
