/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Following power-profiles-daemon: its ActiveProfile, read at start, on every PropertiesChanged and
 * whenever the service appears, makes the devfreqd profile of the same name active (or none). The
 * newer name org.freedesktop.UPower.PowerProfiles first, else net.hadess.PowerProfiles. It is never
 * activated; a failure to read it is a log line and changes nothing. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-internal.h"
#include "logging.h"

static const struct service {
        const char *name, *path, *interface;
} services[] = {
        { "org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles",
          "org.freedesktop.UPower.PowerProfiles" },
        { "net.hadess.PowerProfiles", "/net/hadess/PowerProfiles", "net.hadess.PowerProfiles" },
};
#define N_SERVICES ELEMENTSOF(services)

struct power_profiles {
        struct bus *bus;
        sd_bus_slot *owner_match[N_SERVICES];
        sd_bus_slot *props_match[N_SERVICES];
        sd_bus_slot *query[N_SERVICES];
        bool fallback; /* at start: ask the older name when the newer one is not there */
};

static bool following(struct power_profiles *pp) {
        return pp->bus->manager->config && pp->bus->manager->config->follow_power_profiles;
}

static void follow(struct power_profiles *pp, const struct service *s, const char *profile) {
        struct manager *m = pp->bus->manager;
        bool known = df_config_find_profile(m->config, profile) != NULL;

        if (!following(pp))
                return;
        log_debug("%s: ActiveProfile is %s", s->name, profile);
        if (!known && m->profile)
                log_info("power-profiles-daemon switched to %s, which names no profile here", profile);
        (void) manager_set_profile(m, known ? profile : NULL, PROFILE_SOURCE_POWER_PROFILES);
}

static int query(struct power_profiles *pp, size_t i);

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        struct power_profiles *pp = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        const char *profile;
        size_t i;
        int r;

        for (i = 0; i < N_SERVICES && pp->query[i] != sd_bus_get_current_slot(sd_bus_message_get_bus(reply));
             i++)
                ;
        if (i == N_SERVICES)
                return 0;
        pp->query[i] = sd_bus_slot_unref(pp->query[i]);
        if (e) {
                if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                        log_debug("%s is not on the bus", services[i].name);
                        if (pp->fallback && i + 1 < N_SERVICES)
                                (void) query(pp, i + 1);
                } else
                        log_warning("Cannot read ActiveProfile of %s: %s", services[i].name, e->message);
                if (i + 1 >= N_SERVICES)
                        pp->fallback = false;
                return 0;
        }
        pp->fallback = false;
        r = sd_bus_message_read(reply, "v", "s", &profile);
        if (r < 0) {
                log_warning_errno(r, "Cannot read ActiveProfile of %s: %m", services[i].name);
                return 0;
        }
        follow(pp, &services[i], profile);
        return 0;
}

/* Get ActiveProfile, without activating the service. */
static int query(struct power_profiles *pp, size_t i) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        sd_bus *bus = pp->bus->bus;
        int r;

        pp->query[i] = sd_bus_slot_unref(pp->query[i]);
        r = sd_bus_message_new_method_call(
                bus, &m, services[i].name, services[i].path, "org.freedesktop.DBus.Properties", "Get");
        if (r >= 0)
                r = sd_bus_message_set_auto_start(m, false);
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", services[i].interface, "ActiveProfile");
        if (r >= 0)
                r = sd_bus_call_async(bus, &pp->query[i], m, on_reply, pp, 5 * 1000 * 1000);
        if (r < 0)
                log_warning_errno(r, "Cannot ask %s for its profile: %m", services[i].name);
        return r;
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct power_profiles *pp = userdata;
        const char *interface, *key, *profile = NULL;
        size_t i;
        int r;

        r = sd_bus_message_read(m, "s", &interface);
        for (i = 0; r >= 0 && i < N_SERVICES && !streq(services[i].interface, interface); i++)
                ;
        if (r < 0 || i == N_SERVICES)
                return 0;
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r > 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &key);
                if (r >= 0 && streq(key, "ActiveProfile"))
                        r = sd_bus_message_read(m, "v", "s", &profile);
                else if (r >= 0)
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r < 0) {
                log_warning_errno(r, "Cannot read a PropertiesChanged of %s: %m", services[i].name);
                return 0;
        }
        if (profile)
                follow(pp, &services[i], profile);
        return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct power_profiles *pp = userdata;
        const char *name, *old_owner, *new_owner;
        size_t i;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        for (i = 0; i < N_SERVICES && !streq(services[i].name, name); i++)
                ;
        if (i == N_SERVICES)
                return 0;
        if (!*new_owner) {
                log_info("%s left the bus; the profile stays", name);
                return 0;
        }
        log_info("%s is on the bus", name);
        if (following(pp))
                (void) query(pp, i);
        return 0;
}

static int add_matches(struct power_profiles *pp, size_t i) {
        sd_bus *bus = pp->bus->bus;
        char rule[512];
        int r;

        snprintf(
                rule, sizeof(rule),
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='%s'",
                services[i].name);
        r = sd_bus_add_match_async(bus, &pp->owner_match[i], rule, on_owner_changed, NULL, pp);
        if (r < 0)
                return r;
        snprintf(
                rule, sizeof(rule),
                "type='signal',path='%s',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                "arg0='%s'",
                services[i].path, services[i].interface);
        return sd_bus_add_match_async(bus, &pp->props_match[i], rule, on_properties_changed, NULL, pp);
}

int power_profiles_start(struct bus *b) {
        struct power_profiles *pp;
        int r = 0;

        pp = calloc(1, sizeof(*pp));
        if (!pp)
                return log_oom();
        pp->bus = b;
        b->power_profiles = pp;
        for (size_t i = 0; i < N_SERVICES && r >= 0; i++)
                r = add_matches(pp, i);
        if (r < 0) {
                log_warning_errno(r, "Cannot watch power-profiles-daemon: %m");
                return 0;
        }
        if (following(pp)) {
                pp->fallback = true;
                (void) query(pp, 0);
        }
        return 0;
}

void power_profiles_free(struct bus *b) {
        struct power_profiles *pp = b->power_profiles;

        if (!pp)
                return;
        for (size_t i = 0; i < N_SERVICES; i++) {
                sd_bus_slot_unref(pp->owner_match[i]);
                sd_bus_slot_unref(pp->props_match[i]);
                sd_bus_slot_unref(pp->query[i]);
        }
        free(pp);
        b->power_profiles = NULL;
}
