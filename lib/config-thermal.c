/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [thermal NAME] sections: a zone, the devices it caps, the trip and clear temperatures, the cap,
 * how often the zone is read and how long a dead one keeps its state; parsed into the model and
 * validated once every file is read. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "macro.h"
#include "names.h"
#include "strv.h"
#include "units.h"

#define ZONE_LEN_MAX 63u

/* A "[thermal NAME]" header: `name` is what follows the word, blanks stripped. */
int config_thermal_begin(struct parser *p, const char *name) {
        assert(p);
        assert(name);

        struct df_config *c = p->config;
        struct df_config_thermal *t;

        if (!*name)
                return config_report_line(p, p->line, "[thermal] needs a name: [thermal NAME]");
        if (!df_name_valid(name) || strpbrk(name, " \t"))
                return config_report_line(
                        p, p->line, "'%s' is not a rule name (printable, no blanks, no '/', not '.' or '..')",
                        name);
        for (size_t i = 0; i < c->n_thermals; i++)
                if (streq(c->thermals[i].name, name)) {
                        p->thermal = i;
                        p->section = SECTION_THERMAL;
                        return 0;
                }
        if (!GROW(p->thermal_bad, c->n_thermals))
                return config_oom(p);
        t = GROW(c->thermals, c->n_thermals);
        if (!t || !(t->name = strdup(name)))
                return config_oom(p);
        t->loc = (struct df_location){ .file = p->file, .line = p->line };
        t->poll_usec = DF_CONFIG_DEFAULT_THERMAL_POLL_USEC;
        t->stale_usec = DF_CONFIG_DEFAULT_THERMAL_STALE_USEC;
        p->thermal = c->n_thermals++;
        p->section = SECTION_THERMAL;
        return 0;
}

static int parse_zone(struct parser *p, struct df_config_thermal *t, const char *value) {
        char *copy;

        if (strlen(value) > ZONE_LEN_MAX || !df_name_valid(value) || strpbrk(value, " \t"))
                return config_refuse(
                        p, "zone: '%s' is not a zone's type or name (thermal_zoneN), at most %u bytes", value,
                        ZONE_LEN_MAX);
        copy = strdup(value);
        if (!copy)
                return config_oom(p);
        free(t->zone);
        t->zone = copy;
        t->zone_loc = config_here(p);
        return 0;
}

static void set_devices(struct parser *p, struct df_config_thermal *t, char **v, size_t n, bool all) {
        strv_free(t->devices, t->n_devices);
        t->devices = v;
        t->n_devices = n;
        t->all_devices = all;
        t->devices_loc = config_here(p);
}

/* "gpu dmc" or "*": a later line replaces the list. */
static int parse_devices(struct parser *p, struct df_config_thermal *t, const char *value) {
        _cleanup_free_ char *copy = NULL;
        char **v = NULL, *save = NULL;
        size_t n = 0;

        if (streq(value, "*")) {
                set_devices(p, t, NULL, 0, true);
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return config_oom(p);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                if (streq(w, "*") || !df_name_valid(w)) {
                        strv_free(v, n);
                        return config_refuse(
                                p, "devices: '%s' is not a device name (names separated by blanks, or * alone)",
                                w);
                }
                if (strv_push(&v, &n, w) < 0) {
                        strv_free(v, n);
                        return config_oom(p);
                }
        }
        set_devices(p, t, v, n, false);
        return 0;
}

static int parse_temperature(struct parser *p, const char *key, const char *value, int64_t *ret) {
        int r = df_parse_temperature(value, ret);

        if (r < 0)
                return config_refuse(
                        p,
                        "%s: '%s' is not a temperature (85C, 82.5C, or millidegrees as sysfs gives them: 85000)",
                        key, value);
        return 0;
}

static int parse_duration_key(struct parser *p, const char *key, const char *value, uint64_t *ret) {
        uint64_t v;

        if (df_parse_duration(value, &v) < 0 || v < POLLING_MIN_USEC || v > POLLING_MAX_USEC)
                return config_refuse(
                        p, "%s: '%s' is not a duration from 1ms to 1h (e.g. 1s, 500ms)", key, value);
        *ret = v;
        return 0;
}

int config_apply_thermal(struct parser *p, const char *key, const char *value) {
        assert(p);
        assert(key);
        assert(value);

        struct df_config_thermal *t = &p->config->thermals[p->thermal];
        int r;

        if (!*value)
                return config_refuse(p, "%s needs a value", key);
        if (streq(key, "zone"))
                return parse_zone(p, t, value);
        if (streq(key, "devices"))
                return parse_devices(p, t, value);
        if (streq(key, "trip") || streq(key, "clear")) {
                bool trip = streq(key, "trip");
                r = parse_temperature(p, key, value, trip ? &t->trip : &t->clear);
                if (r >= 0) {
                        *(trip ? &t->trip_set : &t->clear_set) = true;
                        *(trip ? &t->trip_loc : &t->clear_loc) = config_here(p);
                }
                return r;
        }
        if (streq(key, "max-frequency")) {
                r = config_parse_frequency(p, value, false, &t->max_freq);
                if (r >= 0)
                        t->max_loc = config_here(p);
                return r;
        }
        if (streq(key, "poll") || streq(key, "stale")) {
                bool poll = streq(key, "poll");
                r = parse_duration_key(p, key, value, poll ? &t->poll_usec : &t->stale_usec);
                if (r >= 0)
                        *(poll ? &t->poll_loc : &t->stale_loc) = config_here(p);
                return r;
        }
        return config_refuse(
                p, "unknown thermal key '%s' (zone, devices, trip, clear, max-frequency, poll, stale)", key);
}

/* The keys without a default. */
static bool validate_present(struct parser *p, const struct df_config_thermal *t) {
        static const char *const what[] = {
                "zone = TYPE",         "devices = NAME... or *",    "trip = TEMPERATURE",
                "clear = TEMPERATURE", "max-frequency = FREQUENCY",
        };
        bool have[] = { t->zone, t->all_devices || t->n_devices > 0, t->trip_set, t->clear_set,
                        t->max_freq > 0 };
        bool ok = true;

        for (size_t i = 0; i < ELEMENTSOF(what); i++)
                if (!have[i]) {
                        config_report_at(p, &t->loc, "thermal %s: no %s", t->name, what[i]);
                        ok = false;
                }
        return ok;
}

static void validate_temperatures(struct parser *p, const struct df_config_thermal *t) {
        char a[DF_TEMPERATURE_STRING_MAX], b[DF_TEMPERATURE_STRING_MAX], lo[DF_TEMPERATURE_STRING_MAX],
                hi[DF_TEMPERATURE_STRING_MAX];

        df_format_temperature(lo, DF_THERMAL_MIN_MILLICELSIUS);
        df_format_temperature(hi, DF_THERMAL_MAX_MILLICELSIUS);
        if (t->trip < DF_THERMAL_MIN_MILLICELSIUS || t->trip > DF_THERMAL_MAX_MILLICELSIUS)
                config_report_at(
                        p, &t->trip_loc, "thermal %s: trip = %s is outside what a zone can report (%s to %s)",
                        t->name, df_format_temperature(a, t->trip), lo, hi);
        if (t->clear < DF_THERMAL_MIN_MILLICELSIUS || t->clear > DF_THERMAL_MAX_MILLICELSIUS)
                config_report_at(
                        p, &t->clear_loc, "thermal %s: clear = %s is outside what a zone can report (%s to %s)",
                        t->name, df_format_temperature(a, t->clear), lo, hi);
        if (t->clear >= t->trip)
                config_report_at(
                        p,
                        config_loc_before(p->config, &t->trip_loc, &t->clear_loc) ? &t->clear_loc : &t->trip_loc,
                        "thermal %s: clear = %s must be below trip = %s (the gap between them keeps the cap "
                        "from flapping)",
                        t->name, df_format_temperature(a, t->clear), df_format_temperature(b, t->trip));
}

/* A configured device with its own points: the cap must leave at least one. Devices whose points
 * come from the node are checked when they attach (df_spec_resolve()). */
static void validate_device(struct parser *p, const struct df_config_thermal *t, const char *name) {
        const struct df_config *c = p->config;
        const struct df_config_device *d = df_config_find_device(c, name);
        char a[DF_FREQ_STRING_MAX], b[DF_FREQ_STRING_MAX];

        if (!d) {
                /* Autodiscovered and hotplugged devices are named by their nodes. */
                if (!c->autodiscover)
                        config_report_at(
                                p, &t->devices_loc, "thermal %s: '%s' is not a configured device", t->name,
                                name);
                return;
        }
        if (p->device_bad[d - c->devices] || d->n_opps == 0)
                return;
        if (d->opps[0].freq > t->max_freq)
                config_report_at(
                        p, &t->max_loc,
                        "thermal %s: max-frequency %s is below every point of device '%s' (the lowest is %s)",
                        t->name, df_format_frequency(a, t->max_freq), name,
                        df_format_frequency(b, d->opps[0].freq));
}

void config_validate_thermals(struct parser *p) {
        assert(p);

        const struct df_config *c = p->config;

        for (size_t i = 0; i < c->n_thermals; i++) {
                const struct df_config_thermal *t = &c->thermals[i];

                if (p->thermal_bad[i] || !validate_present(p, t))
                        continue;
                validate_temperatures(p, t);
                /* A rule for every device (*) applies where it can: below every point of one, the
                 * lowest stays. */
                for (size_t k = 0; k < t->n_devices; k++)
                        validate_device(p, t, t->devices[k]);
        }
}

const struct df_config_thermal *df_config_find_thermal(const struct df_config *c, const char *name) {
        if (!c || !name)
                return NULL;
        for (size_t i = 0; i < c->n_thermals; i++)
                if (streq(c->thermals[i].name, name))
                        return &c->thermals[i];
        return NULL;
}

bool df_config_thermal_covers(const struct df_config_thermal *t, const char *device) {
        assert(t);
        assert(device);

        if (t->all_devices)
                return true;
        for (size_t i = 0; i < t->n_devices; i++)
                if (streq(t->devices[i], device))
                        return true;
        return false;
}
