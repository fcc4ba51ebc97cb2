/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl blame DEVICE: who decided the device's range and for how long (GetBlame), longest
 * first, like systemd-analyze blame. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devfreqctl.h"
#include "units.h"

/* For people: "1h 2min", "3min 4.512s", "4.512s", "350ms", "20us". */
const char *ctl_format_human_duration(char buf[static 32], uint64_t usec) {
        uint64_t s = usec / 1000000;

        if (s >= 3600)
                snprintf(buf, 32, "%" PRIu64 "h %" PRIu64 "min", s / 3600, s % 3600 / 60);
        else if (s >= 60)
                snprintf(
                        buf, 32, "%" PRIu64 "min %" PRIu64 ".%03" PRIu64 "s", s / 60, s % 60,
                        usec % 1000000 / 1000);
        else if (s >= 1)
                snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64 "s", s, usec % 1000000 / 1000);
        else if (usec >= 1000)
                snprintf(buf, 32, "%" PRIu64 "ms", usec / 1000);
        else
                snprintf(buf, 32, "%" PRIu64 "us", usec);
        return buf;
}

static int read_blame(sd_bus_message *m, struct ctl_blame_entry **ret, size_t *ret_n) {
        struct ctl_blame_entry *v = NULL, e;
        size_t n = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(tsussstt)");
        while (r >= 0) {
                r = sd_bus_message_read(
                        m, "(tsussstt)", &e.id, &e.type, &e.uid, &e.unit, &e.command, &e.reason, &e.value,
                        &e.binding_usec);
                if (r <= 0)
                        break;
                struct ctl_blame_entry *w = reallocarray(v, n + 1, sizeof(*v));
                if (!w) {
                        r = -ENOMEM;
                        break;
                }
                v = w;
                v[n++] = e;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0) {
                free(v);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static void print_json(const char *device, const struct ctl_blame_entry *v, size_t n) {
        struct json j;

        json_init(&j, stdout);
        json_begin_object(&j, false);
        json_key(&j, "device");
        json_string(&j, device);
        json_key(&j, "entries");
        json_begin_array(&j, false);
        for (size_t i = 0; i < n; i++) {
                json_begin_object(&j, true);
                json_key(&j, "request");
                json_uint(&j, v[i].id);
                json_key(&j, "type");
                json_string(&j, v[i].type);
                json_key(&j, "uid");
                json_uint(&j, v[i].uid);
                json_key(&j, "unit");
                json_string(&j, v[i].unit);
                json_key(&j, "command");
                json_string(&j, v[i].command);
                json_key(&j, "reason");
                json_string(&j, v[i].reason);
                json_key(&j, "value");
                json_uint(&j, v[i].value);
                json_key(&j, "binding_usec");
                json_uint(&j, v[i].binding_usec);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_end_object(&j);
        (void) json_finish(&j);
}

#define BLAME_COLUMNS 6

static void print_row(char cells[BLAME_COLUMNS][128], const int *width) {
        for (int k = 0; k < BLAME_COLUMNS; k++) {
                bool last = k == BLAME_COLUMNS - 1;
                /* The duration right-aligned, as systemd-analyze blame has it; the rest left. */
                printf(k == 0 ? "%*s%s" : "%-*s%s", last ? 0 : width[k], cells[k], last ? "\n" : "  ");
        }
}

/* A thermal rule's cap: the daemon's own entry (command and reason both "thermal RULE"). */
static bool is_thermal_rule(const struct ctl_blame_entry *e) {
        return e->id == 0 && e->uid == 0 && streq(e->command, e->reason) &&
                strneq(e->command, "thermal ", strlen("thermal "));
}

static void format_row(const struct ctl_blame_entry *e, char cells[BLAME_COLUMNS][128]) {
        char buf[32];

        snprintf(cells[0], 128, "%s", ctl_format_human_duration(buf, e->binding_usec));
        snprintf(cells[1], 128, "%s", e->type);
        snprintf(cells[2], 128, "%s", format_request_value(buf, e->type, e->value));
        if (e->id)
                snprintf(cells[3], 128, "%" PRIu64, e->id);
        else if (is_thermal_rule(e)) /* a rule is no request: it has no id, tripped or not */
                snprintf(cells[3], 128, "rule");
        else
                snprintf(cells[3], 128, "ended");
        snprintf(cells[4], 128, "%" PRIu32 " %s", e->uid, *e->unit ? e->unit : "-");
        if (*e->command && streq(e->command, e->reason)) /* the daemon's own: "profile NAME" */
                snprintf(cells[5], 128, "%s", e->command);
        else if (*e->command || *e->reason)
                snprintf(
                        cells[5], 128, "%s%s%s", *e->command ? e->command : "-", *e->reason ? ": " : "",
                        e->reason);
        else
                snprintf(cells[5], 128, "(hidden)");
}

static void print_table(const struct ctl_blame_entry *v, size_t n) {
        static const char *const header[BLAME_COLUMNS] = { "BINDING", "TYPE",     "VALUE",
                                                           "REQUEST", "UID UNIT", "COMMAND" };
        char cells[BLAME_COLUMNS][128];
        int width[BLAME_COLUMNS] = {};

        for (int k = 0; k < BLAME_COLUMNS; k++)
                width[k] = (int) strlen(header[k]);
        for (size_t i = 0; i < n; i++) {
                format_row(&v[i], cells);
                for (int k = 0; k < BLAME_COLUMNS; k++)
                        width[k] = MAX(width[k], (int) strlen(cells[k]));
        }
        for (int k = 0; k < BLAME_COLUMNS; k++)
                snprintf(cells[k], 128, "%s", header[k]);
        print_row(cells, width);
        for (size_t i = 0; i < n; i++) {
                format_row(&v[i], cells);
                print_row(cells, width);
        }
}

int ctl_get_blame(
        struct ctl *c, const char *path, sd_bus_error *error, sd_bus_message **ret_reply,
        struct ctl_blame_entry **ret, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(c->bus, BUS_NAME, path, IFACE_DEVICE, "GetBlame", error, &reply, NULL);
        if (r >= 0)
                r = read_blame(reply, ret, ret_n);
        if (r >= 0)
                *ret_reply = TAKE_PTR(reply);
        return r;
}

int cmd_blame(struct ctl *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ struct ctl_blame_entry *v = NULL;
        const char *name = c->args[0];
        size_t n = 0;
        int r;

        if (ctl_device_path(c, name, &path) < 0)
                return EXIT_DAEMON;
        r = ctl_get_blame(c, path, &error, &reply, &v, &n);
        if (r < 0)
                return ctl_bus_error(name, &error, r);
        if (c->json)
                print_json(name, v, n);
        else if (n == 0)
                printf("%s: no requests, live or remembered\n", name);
        else
                print_table(v, n);
        return EXIT_SUCCESS;
}
