/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.freedesktop.LogControl1, by hand (libsystemd has no public helper): log level and target
 * at run time, for `systemctl service-log-level`. */

#include <errno.h>
#include <string.h>

#include "bus-internal.h"
#include "logging.h"

static int property_get_level(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", log_level_to_string(log_get_max_level()));
}

static int property_get_target(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", log_get_target() == LOG_TARGET_NULL ? "null" : "console");
}

static int property_get_identifier(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
        void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", "devfreqd");
}

static int require_root(struct bus *b, sd_bus_message *m, sd_bus_error *error) {
        uint32_t euid, pid;
        int r = sender_creds(b, m, &euid, &pid);

        if (r < 0)
                return r;
        if (euid != 0)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_ACCESS_DENIED, "Only root may change the log settings");
        return 0;
}

static int property_set_level(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
        void *userdata, sd_bus_error *error) {
        char e[ECHO_BUFFER];
        const char *s;
        int r, level;

        r = sd_bus_message_read(value, "s", &s);
        if (r < 0)
                return r;
        level = log_level_from_string(s);
        if (level < 0)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "Unknown log level '%s' (emerg, alert, crit, err, warning, notice, info, debug)",
                        bus_echo(s, e));
        r = require_root(userdata, value, error);
        if (r < 0)
                return r;
        log_info("Log level set to %s", s);
        log_set_max_level(level);
        (void) sd_bus_emit_properties_changed(bus, path, interface, "LogLevel", NULL);
        return 1;
}

static int property_set_target(
        sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
        void *userdata, sd_bus_error *error) {
        static const char *const known[] = { "console", "journal", "syslog", "kmsg", "null" };
        bool ok = false;
        char e[ECHO_BUFFER];
        const char *s;
        int r;

        r = sd_bus_message_read(value, "s", &s);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                ok = ok || streq(known[i], s);
        if (!ok)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "Unknown log target '%s' (console, journal, syslog, kmsg, null)", bus_echo(s, e));
        r = require_root(userdata, value, error);
        if (r < 0)
                return r;
        /* journald reads stderr, so the other targets all mean the console here. */
        log_set_target(streq(s, "null") ? LOG_TARGET_NULL : LOG_TARGET_CONSOLE);
        (void) sd_bus_emit_properties_changed(bus, path, interface, "LogTarget", NULL);
        return 1;
}

const sd_bus_vtable logcontrol_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_WRITABLE_PROPERTY(
                "LogLevel", "s", property_get_level, property_set_level, 0,
                SD_BUS_VTABLE_UNPRIVILEGED | SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_WRITABLE_PROPERTY(
                "LogTarget", "s", property_get_target, property_set_target, 0,
                SD_BUS_VTABLE_UNPRIVILEGED | SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SyslogIdentifier", "s", property_get_identifier, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};
