/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Following power-profiles-daemon: its ActiveProfile, read at start, on every PropertiesChanged,
 * whenever the service appears and after a reload, makes the devfreqd profile of the same name
 * active (or none). The newer name org.freedesktop.UPower.PowerProfiles first, else
 * net.hadess.PowerProfiles. It is never activated; a failure to read it is a log line and changes
 * nothing. Its signals are believed only from the owner of its name, and switches are coalesced:
 * the latest value is applied once the bus has nothing else waiting, so a burst of changes costs
 * one switch. */

#include <assert.h>
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
        struct name_watch *owner[N_SERVICES];
        sd_bus_slot *props_match[N_SERVICES];
        sd_bus_slot *query[N_SERVICES];
        bool fallback; /* at start: ask the older name when the newer one is not there */
        bool followed; /* following was on at start or at the last reload */
        char *pending; /* the latest ActiveProfile not applied yet, with its service */
        const struct service *pending_service;
        sd_event_source *apply; /* idle-priority: applies `pending` */
};

static bool following(struct power_profiles *pp) {
        return pp->bus->manager->config && pp->bus->manager->config->follow_power_profiles;
}

static int on_apply(sd_event_source *s, void *userdata) {
        struct power_profiles *pp = userdata;
        struct manager *m = pp->bus->manager;
        _cleanup_free_ char *profile = TAKE_PTR(pp->pending);
        bool known;

        if (!profile || !following(pp))
                return 0;
        known = df_config_find_profile(m->config, profile) != NULL;
        log_debug("%s: ActiveProfile is %s", pp->pending_service->name, profile);
        if (!known && m->profile)
                log_info("power-profiles-daemon switched to %s, which names no profile here", profile);
        (void) manager_set_profile(m, known ? profile : NULL, PROFILE_SOURCE_POWER_PROFILES);
        return 0;
}

/* Remember the latest value; it is applied when nothing else waits (one switch for a burst). */
static void follow(struct power_profiles *pp, const struct service *s, const char *profile) {
        char *copy;
        int r;

        if (!following(pp))
                return;
        copy = strdup(profile);
        if (!copy) {
                log_oom();
                return;
        }
        free(pp->pending);
        pp->pending = copy;
        pp->pending_service = s;
        if (!pp->apply) {
                r = sd_event_add_defer(pp->bus->event, &pp->apply, on_apply, pp);
                if (r >= 0)
                        r = sd_event_source_set_priority(pp->apply, SD_EVENT_PRIORITY_IDLE);
                if (r < 0) {
                        log_warning_errno(r, "Cannot schedule the switch to %s: %m", profile);
                        pp->apply = sd_event_source_disable_unref(pp->apply);
                        return;
                }
        }
        (void) sd_event_source_set_enabled(pp->apply, SD_EVENT_ONESHOT);
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
        if (!streq_ptr(sd_bus_message_get_sender(reply), name_watch_owner(pp->owner[i]))) {
                log_debug(
                        "Ignored an answer for %s's ActiveProfile from %s, not its owner", services[i].name,
                        strna(sd_bus_message_get_sender(reply)));
                return 0;
        }
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
        if (!signal_from_owner(pp->bus, pp->owner[i], m))
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

static void on_owner_changed(struct name_watch *w, const char *owner, void *userdata) {
        struct power_profiles *pp = userdata;
        size_t i;

        for (i = 0; i < N_SERVICES && pp->owner[i] != w; i++)
                ;
        if (i == N_SERVICES)
                return;
        if (!owner) {
                log_info("%s left the bus; the profile stays", services[i].name);
                return;
        }
        log_info("%s is on the bus", services[i].name);
        if (following(pp))
                (void) query(pp, i);
}

/* The sender= lets the bus route only the owner's broadcasts; the handler checks unicasts too. */
static int add_matches(struct power_profiles *pp, size_t i) {
        sd_bus *bus = pp->bus->bus;
        char rule[512];
        int r;

        r = name_watch_new(pp->bus, services[i].name, on_owner_changed, pp, &pp->owner[i]);
        if (r < 0)
                return r;
        snprintf(
                rule, sizeof(rule),
                "type='signal',sender='%s',path='%s',interface='org.freedesktop.DBus.Properties',"
                "member='PropertiesChanged',arg0='%s'",
                services[i].name, services[i].path, services[i].interface);
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
        pp->followed = following(pp);
        if (pp->followed) {
                pp->fallback = true;
                (void) query(pp, 0);
        }
        return 0;
}

void power_profiles_reloaded(struct manager *m, void *userdata) {
        struct bus *b = userdata;
        struct power_profiles *pp = b->power_profiles;
        bool was;

        if (!pp)
                return;
        was = pp->followed;
        pp->followed = following(pp);
        /* The new configuration may name the desktop's profile, or have just turned following on;
         * a client's choice made while following outlives a reload, as until the desktop's next
         * switch. */
        if (!pp->followed || (was && m->profile_source == PROFILE_SOURCE_CLIENT))
                return;
        for (size_t i = 0; i < N_SERVICES; i++)
                if (name_watch_owner(pp->owner[i])) {
                        (void) query(pp, i);
                        return;
                }
}

void power_profiles_free(struct bus *b) {
        struct power_profiles *pp = b->power_profiles;

        if (!pp)
                return;
        for (size_t i = 0; i < N_SERVICES; i++) {
                name_watch_free(pp->owner[i]);
                sd_bus_slot_unref(pp->props_match[i]);
                sd_bus_slot_unref(pp->query[i]);
        }
        sd_event_source_disable_unref(pp->apply);
        free(pp->pending);
        free(pp);
        b->power_profiles = NULL;
}

/* One service's ActiveProfile, asked of its name's owner: 1 with *ret, 0 when the name has none. */
static int read_profile(sd_bus *bus, const struct service *s, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *owner = NULL, *reply = NULL;
        const char *unique, *profile;
        int r;

        r = sd_bus_call_method(
                bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                &e, &owner, "s", s->name);
        if (r < 0 && sd_bus_error_has_name(&e, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return 0;
        if (r >= 0)
                r = sd_bus_message_read(owner, "s", &unique);
        if (r >= 0) /* a unique name is never activated, and only its owner answers */
                r = sd_bus_call_method(
                        bus, unique, s->path, "org.freedesktop.DBus.Properties", "Get", &e, &reply, "ss",
                        s->interface, "ActiveProfile");
        if (r >= 0)
                r = sd_bus_message_read(reply, "v", "s", &profile);
        if (r < 0)
                return log_warning_errno(
                        r, "Cannot read ActiveProfile of %s: %s", s->name,
                        sd_bus_error_is_set(&e) ? e.message : strerror(-r));
        *ret = strdup(profile);
        return *ret ? 1 : log_oom();
}

int bus_read_desktop_profile(const char *address, char **ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        assert(address);
        assert(ret);

        r = bus_connect(address, &bus);
        if (r >= 0)
                r = sd_bus_set_method_call_timeout(bus, 5 * 1000 * 1000);
        if (r < 0)
                return log_warning_errno(
                        r, "Cannot ask the %s bus for power-profiles-daemon's profile: %m", address);
        for (size_t i = 0; i < N_SERVICES; i++) {
                r = read_profile(bus, &services[i], ret);
                if (r != 0)
                        return r;
        }
        return 0;
}
