/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl profile: the active profile, its source and the list; what a profile sets; switching. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devfreqctl.h"

/* "power-saver (client)" or "none", from the manager's properties; 0 or EXIT_DAEMON. */
int ctl_profile_phrase(const struct props *manager, char **ret) {
        const char *name = props_str(manager, "ActiveProfile");

        if (!*name)
                *ret = strdup("none");
        else if (asprintf(ret, "%s (%s)", name, props_str(manager, "ActiveProfileSource")) < 0)
                *ret = NULL;
        return *ret ? EXIT_SUCCESS : ctl_fail(NULL, "out of memory");
}

int ctl_profile_line(struct ctl *c, char **ret) {
        _cleanup_(props_done) struct props ps = {};

        if (ctl_get_all(c, NULL, OBJECT_ROOT, IFACE_MANAGER, &ps) < 0)
                return EXIT_DAEMON; /* said why */
        return ctl_profile_phrase(&ps, ret);
}

static int profile_status(struct ctl *c) {
        _cleanup_(props_done) struct props ps = {};
        _cleanup_free_ char *line = NULL;
        const struct prop *list;
        struct json j;
        int status;

        if (ctl_get_all(c, NULL, OBJECT_ROOT, IFACE_MANAGER, &ps) < 0)
                return EXIT_DAEMON; /* said why */
        list = props_get(&ps, "Profiles");
        if (c->json) {
                json_init(&j, stdout);
                json_begin_object(&j, false);
                for (size_t i = 0; i < ps.n; i++)
                        if (strstr(ps.v[i].name, "Profile"))
                                json_prop(&j, &ps.v[i]);
                json_end_object(&j);
                return json_finish(&j) < 0 ? EXIT_DAEMON : EXIT_SUCCESS;
        }
        status = ctl_profile_phrase(&ps, &line);
        if (status != EXIT_SUCCESS)
                return status;
        printf("Active profile: %s\n", line);
        printf("Profiles:");
        for (size_t i = 0; list && i < list->n; i++)
                printf(" %s", list->strv[i]);
        printf("%s\n", list && list->n ? "" : " none configured");
        return EXIT_SUCCESS;
}

static int profile_show(struct ctl *c, const char *name) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *device, *key, *value;
        struct json j;
        int r;

        r = sd_bus_call_method(
                c->bus, BUS_NAME, OBJECT_ROOT, IFACE_MANAGER, "GetProfile", &error, &reply, "s", name);
        if (r < 0)
                return ctl_bus_error(NULL, &error, r);
        r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        if (c->json) {
                json_init(&j, stdout);
                json_begin_array(&j, false);
        }
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sss)", &device, &key, &value)) > 0) {
                if (!c->json) {
                        printf("%s.%s = %s\n", device, key, value);
                        continue;
                }
                json_begin_object(&j, true);
                json_key(&j, "device");
                json_string(&j, device);
                json_key(&j, "key");
                json_string(&j, key);
                json_key(&j, "value");
                json_string(&j, value);
                json_end_object(&j);
        }
        if (r < 0)
                return ctl_fail(NULL, "cannot read the profile: %s", strerror(-r));
        if (c->json) {
                json_end_array(&j);
                return json_finish(&j) < 0 ? EXIT_DAEMON : EXIT_SUCCESS;
        }
        return EXIT_SUCCESS;
}

static int profile_set(struct ctl *c, const char *name) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(
                c->bus, BUS_NAME, OBJECT_ROOT, IFACE_MANAGER, "SetProfile", &error, NULL, "s",
                streq(name, "none") ? "" : name);
        if (r < 0)
                return ctl_bus_error(NULL, &error, r);
        return EXIT_SUCCESS;
}

/* The command line's part, before the bus is reached: profile | profile show NAME | profile NAME |
 * profile none. An empty name is no profile's (the bus would read it as none). */
int parse_profile(struct ctl *c) {
        bool show = c->n_args > 0 && streq(c->args[0], "show");

        if (show && c->n_args != 2)
                return ctl_usage("profile show wants one profile name");
        if (!show && c->n_args > 1)
                return ctl_usage("profile wants one profile name, none, or show NAME");
        if (c->n_args > 0 && c->args[c->n_args - 1][0] == '\0')
                return ctl_usage("an empty profile name (profile none switches the profile off)");
        if (c->n_args == 1 && !show && c->json)
                return ctl_usage("--json goes with profile and profile show, not with switching");
        return 0;
}

int cmd_profile(struct ctl *c) {
        if (c->n_args == 0)
                return profile_status(c);
        if (streq(c->args[0], "show"))
                return profile_show(c, c->args[1]);
        return profile_set(c, c->args[0]);
}
