/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The keys of [daemon] and [device NAME]: one handler each (apply_*), on small value parsers that
 * refuse with a message saying what was expected; a complete assignment lands in the model here. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "macro.h"
#include "names.h"
#include "units.h"

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* --- small parsers, each refusing with a message that says what was expected ----------------- */

static int parse_polling(struct parser *p, const char *s, uint64_t *ret) {
        uint64_t v;

        if (df_parse_duration(s, &v) < 0)
                return config_refuse(p, "'%s' is not a duration (e.g. 100ms, 1s)", s);
        if (v < POLLING_MIN_USEC || v > POLLING_MAX_USEC)
                return config_refuse(p, "polling-interval '%s' is out of range (1ms to 3600s)", s);
        *ret = v;
        return 0;
}

static int parse_limit(struct parser *p, const char *key, const char *s, uint32_t *ret) {
        uint32_t v;

        if (df_safe_atou32(s, &v) < 0 || v < 1 || v > LIMIT_MAX)
                return config_refuse(p, "%s '%s' is not a number from 1 to %u", key, s, (unsigned) LIMIT_MAX);
        *ret = v;
        return 0;
}

static bool ascii_caseeq(const char *a, const char *b) {
        for (;; a++, b++) {
                char x = *a >= 'A' && *a <= 'Z' ? (char) (*a - 'A' + 'a') : *a;
                char y = *b >= 'A' && *b <= 'Z' ? (char) (*b - 'A' + 'a') : *b;

                if (x != y)
                        return false;
                if (x == '\0')
                        return true;
        }
}

static int parse_bool(struct parser *p, const char *s, bool *ret) {
        static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (ascii_caseeq(s, yes[i]) || ascii_caseeq(s, no[i])) {
                        *ret = ascii_caseeq(s, yes[i]);
                        return 0;
                }
        }
        return config_refuse(p, "'%s' is not a boolean (yes or no)", s);
}

static int parse_mode(struct parser *p, const char *s, enum df_mode *ret) {
        enum df_mode m = df_mode_from_string(s);

        if (m < 0)
                return config_refuse(p, "'%s' is not a mode (govern or clamp)", s);
        *ret = m;
        return 0;
}

/* The portable user and group name rule (systemd's strict one): [A-Za-z_][A-Za-z0-9_.-]*, at most 31. */
static bool group_name_valid(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > GROUP_LEN_MAX || !(is_alpha(s[0]) || s[0] == '_'))
                return false;
        for (size_t i = 1; i < n; i++)
                if (!is_alpha(s[i]) && !(s[i] >= '0' && s[i] <= '9') && !strchr("_.-", s[i]))
                        return false;
        return true;
}

static int store_string(struct parser *p, char **dst, struct df_location *loc, const char *value) {
        char *copy = strdup(value);

        if (!copy)
                return config_oom(p);
        free(*dst);
        *dst = copy;
        *loc = config_here(p);
        return 0;
}

/* --- [daemon] and [device NAME] keys ---------------------------------------------------------- */

enum key_id {
        KEY_AUTODISCOVER,
        KEY_DEFAULT_MODE,
        KEY_DEFAULT_GOVERNOR,
        KEY_POLLING_INTERVAL,
        KEY_ALLOW_GROUPS,
        KEY_REQUEST_GROUPS,
        KEY_PROFILE_GROUPS,
        KEY_DEFAULT_PROFILE,
        KEY_FOLLOW_POWER_PROFILES,
        KEY_LIMIT, /* a uint32_t count of struct df_config, at key.limit */
        KEY_PATH,
        KEY_MODE,
        KEY_GOVERNOR,
        KEY_INITIAL_FREQUENCY,
        KEY_MIN_FREQUENCY,
        KEY_MAX_FREQUENCY,
        KEY_LOAD,
        KEY_OPP,
        KEY_OPP_DISABLED,
        KEY_OPP_STEP,
        KEY_PARENT,
        KEY_PASSIVE_MAP,
        KEY_OVERRIDE_LIMITS,
        KEY_TUNABLE, /* not in the table: any tunable name of a governor */
};

#define IN_DAEMON 1u
#define IN_DEVICE 2u

static const struct key {
        const char *name;
        enum key_id id;
        unsigned where;
        bool empty_ok; /* lists (empty clears them) and passive-map (empty: no map) */
        size_t limit;  /* KEY_LIMIT: offset of the count in struct df_config */
} keys[] = {
        { "autodiscover", KEY_AUTODISCOVER, IN_DAEMON, false },
        { "default-mode", KEY_DEFAULT_MODE, IN_DAEMON, false },
        { "default-governor", KEY_DEFAULT_GOVERNOR, IN_DAEMON, false },
        { "polling-interval", KEY_POLLING_INTERVAL, IN_DAEMON | IN_DEVICE, false },
        { "allow-groups", KEY_ALLOW_GROUPS, IN_DAEMON, true },
        { "request-groups", KEY_REQUEST_GROUPS, IN_DAEMON, true },
        { "profile-groups", KEY_PROFILE_GROUPS, IN_DAEMON, true },
        { "default-profile", KEY_DEFAULT_PROFILE, IN_DAEMON, true },
        { "follow-power-profiles", KEY_FOLLOW_POWER_PROFILES, IN_DAEMON, false },
        { "max-requests-per-client", KEY_LIMIT, IN_DAEMON, false,
          offsetof(struct df_config, max_requests_per_client) },
        { "max-requests-per-user", KEY_LIMIT, IN_DAEMON, false,
          offsetof(struct df_config, max_requests_per_user) },
        { "max-requests", KEY_LIMIT, IN_DAEMON, false, offsetof(struct df_config, max_requests) },
        { "max-clients", KEY_LIMIT, IN_DAEMON, false, offsetof(struct df_config, max_clients) },
        { "max-pending-checks-per-user", KEY_LIMIT, IN_DAEMON, false,
          offsetof(struct df_config, max_pending_checks_per_user) },
        { "path", KEY_PATH, IN_DEVICE, false },
        { "mode", KEY_MODE, IN_DEVICE, false },
        { "governor", KEY_GOVERNOR, IN_DEVICE, false },
        { "initial-frequency", KEY_INITIAL_FREQUENCY, IN_DEVICE, false },
        { "min-frequency", KEY_MIN_FREQUENCY, IN_DEVICE, false },
        { "max-frequency", KEY_MAX_FREQUENCY, IN_DEVICE, false },
        { "load", KEY_LOAD, IN_DEVICE, false },
        { "opp", KEY_OPP, IN_DEVICE, true },
        { "opp-disabled", KEY_OPP_DISABLED, IN_DEVICE, true },
        { "opp-step", KEY_OPP_STEP, IN_DEVICE, false },
        { "parent", KEY_PARENT, IN_DEVICE, false },
        { "passive-map", KEY_PASSIVE_MAP, IN_DEVICE, true },
        { "override-limits", KEY_OVERRIDE_LIMITS, IN_DEVICE, false },
};

static const struct key tunable_key = { NULL, KEY_TUNABLE, IN_DEVICE, false, 0 };

static const struct key *key_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (streq(keys[i].name, name))
                        return &keys[i];
        return config_tunable_known(name) ? &tunable_key : NULL;
}

/* A key that is unknown or in the wrong place: say where it belongs, or what was probably meant. */
static int refuse_key(struct parser *p, const char *name, const struct key *k) {
        const char *sec = p->section == SECTION_DAEMON ? "[daemon]" : "[device NAME]";
        char alt[NAME_LEN_MAX + 1];

        if (k && p->section == SECTION_NONE)
                return config_refuse(
                        p, "key '%s' comes before any section header; put it in %s", name,
                        k->where & IN_DAEMON ? "[daemon]" : "a [device NAME] section");
        if (k)
                return config_refuse(
                        p, "key '%s' belongs in %s", name,
                        k->where & IN_DAEMON ? "the [daemon] section" : "a [device NAME] section");

        /* "polling_interval" for "polling-interval", "up-threshold" for "up_threshold". */
        snprintf(alt, sizeof(alt), "%s", name);
        for (char *s = alt; *s; s++)
                if (*s == '_' || *s == '-')
                        *s = *s == '_' ? '-' : '_';
        if (key_find(alt))
                return config_refuse(p, "unknown key '%s' (did you mean '%s'?)", name, alt);
        if (p->section == SECTION_NONE)
                return config_refuse(p, "unknown key '%s' before any section header", name);
        return config_refuse(p, "unknown key '%s' in %s", name, sec);
}

/* Each word of `value` appended to a group list, once; an empty value clears the list. */
static int apply_groups(struct parser *p, const char *value, char ***list, size_t *n) {
        _cleanup_free_ char *copy = NULL;
        char *save = NULL;

        if (!*value) {
                config_free_strv(*list, *n);
                *list = NULL;
                *n = 0;
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return config_oom(p);
        /* Check every word before appending any, so a refused line changes nothing. */
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
                if (!group_name_valid(w))
                        return config_refuse(
                                p, "'%s' is not a group name (group lists are separated by spaces)", w);

        strcpy(copy, value);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                bool dup = false;
                char **slot;

                for (size_t i = 0; i < *n && !dup; i++)
                        dup = streq((*list)[i], w);
                if (dup)
                        continue;
                slot = GROW(*list, *n);
                if (!slot || !(*slot = strdup(w)))
                        return config_oom(p);
                (*n)++;
        }
        return 0;
}

static int apply_default_governor(struct parser *p, const char *value) {
        const struct df_governor_ops *ops = df_governor_find(value);
        char names[256];

        p->defaults_bad |= DEFAULT_GOVERNOR_BAD;
        if (!ops)
                return config_refuse(
                        p, "unknown governor '%s' (one of %s)", value,
                        config_governor_names(names, sizeof(names)));
        /* Every govern-mode device without governor = would need its own parent. */
        if (ops == &df_governor_passive)
                return config_refuse(p, "default-governor cannot be passive: it needs a parent for each device");
        p->defaults_bad &= ~DEFAULT_GOVERNOR_BAD;
        return store_string(p, &p->config->default_governor, &(struct df_location){}, value);
}

static void apply_default_mode(struct parser *p, const char *value) {
        if (parse_mode(p, value, &p->config->default_mode) < 0)
                p->defaults_bad |= DEFAULT_MODE_BAD;
        else
                p->defaults_bad &= ~DEFAULT_MODE_BAD;
}

static int apply_daemon(struct parser *p, const struct key *k, const char *value) {
        struct df_config *c = p->config;

        switch (k->id) {
        case KEY_AUTODISCOVER:
                return parse_bool(p, value, &c->autodiscover);
        case KEY_DEFAULT_MODE:
                apply_default_mode(p, value);
                return 0;
        case KEY_DEFAULT_GOVERNOR:
                return apply_default_governor(p, value);
        case KEY_POLLING_INTERVAL:
                return parse_polling(p, value, &c->polling_usec);
        case KEY_ALLOW_GROUPS:
                return apply_groups(p, value, &c->allow_groups, &c->n_allow_groups);
        case KEY_REQUEST_GROUPS:
                return apply_groups(p, value, &c->request_groups, &c->n_request_groups);
        case KEY_PROFILE_GROUPS:
                return apply_groups(p, value, &c->profile_groups, &c->n_profile_groups);
        case KEY_DEFAULT_PROFILE:
                if (!*value) { /* empty: none */
                        free(c->default_profile);
                        c->default_profile = NULL;
                        return 0;
                }
                return store_string(p, &c->default_profile, &c->default_profile_loc, value);
        case KEY_FOLLOW_POWER_PROFILES:
                return parse_bool(p, value, &c->follow_power_profiles);
        case KEY_LIMIT:
                return parse_limit(p, k->name, value, (uint32_t *) ((char *) c + k->limit));
        default:
                return 0;
        }
}

static int apply_tunable(struct parser *p, struct df_config_device *d, const char *name, const char *value) {
        struct df_config_tunable *t = NULL;
        uint32_t v;

        if (config_parse_tunable(p, name, value, &v) < 0)
                return -EINVAL;
        for (size_t i = 0; i < d->n_tunables && !t; i++)
                if (streq(d->tunables[i].name, name))
                        t = &d->tunables[i];
        if (!t) {
                t = GROW(d->tunables, d->n_tunables);
                if (!t || !(t->name = strdup(name)))
                        return config_oom(p);
                d->n_tunables++;
        }
        t->value = v;
        t->loc = config_here(p);
        return 0;
}

/* A trailing '/' is allowed and dropped: the node is the path without it. */
static int apply_path(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ char *trimmed = strdup(value);
        size_t n;

        if (!trimmed)
                return config_oom(p);
        n = strlen(trimmed);
        if (n > 1 && trimmed[n - 1] == '/')
                trimmed[n - 1] = '\0';
        if (!config_startswith(trimmed, "/sys/"))
                return config_refuse(p, "device path '%s' is outside /sys: it must start with /sys/", value);
        if (df_path_check(trimmed) < 0)
                return config_refuse(
                        p,
                        "'%s' is not a usable device path (no '.', '..' or empty components, no control characters)",
                        value);
        return store_string(p, &d->path, &d->path_loc, trimmed);
}

static int apply_load(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ char *path = NULL;
        enum df_load_kind kind;
        int r;

        r = df_load_spec_parse(value, &kind, &path);
        if (r == -ENOMEM)
                return config_oom(p);
        if (r < 0)
                return config_refuse(
                        p,
                        "'%s' is not a load source (none, proc-stat, counters:PATH or percent:PATH, PATH under /sys/ "
                        "or /proc/)",
                        value);
        free(d->load_path);
        d->load_path = TAKE_PTR(path);
        d->load = kind;
        d->load_set = true;
        d->load_loc = config_here(p);
        return 0;
}

/* Set a single value and its location when `r` says it parsed. */
static int set_flag(struct parser *p, int r, bool *flag, struct df_location *loc) {
        if (r < 0)
                return r;
        if (flag)
                *flag = true;
        *loc = config_here(p);
        return 0;
}

static int apply_device(struct parser *p, const struct key *k, const char *name, const char *value) {
        struct df_config_device *d = &p->config->devices[p->device];

        switch (k->id) {
        case KEY_PATH:
                return apply_path(p, d, value);
        case KEY_MODE:
                return set_flag(p, parse_mode(p, value, &d->mode), &d->mode_set, &d->mode_loc);
        case KEY_GOVERNOR:
                /* Which names are allowed depends on the mode, known only after merging. */
                return store_string(p, &d->governor, &d->governor_loc, value);
        case KEY_POLLING_INTERVAL:
                return set_flag(p, parse_polling(p, value, &d->polling_usec), &d->polling_set, &d->polling_loc);
        case KEY_INITIAL_FREQUENCY:
                return set_flag(
                        p, config_parse_frequency(p, value, false, &d->initial_freq), &d->initial_set,
                        &d->initial_loc);
        case KEY_MIN_FREQUENCY:
                return set_flag(p, config_parse_frequency(p, value, true, &d->min_freq), NULL, &d->min_loc);
        case KEY_MAX_FREQUENCY:
                return set_flag(p, config_parse_frequency(p, value, false, &d->max_freq), NULL, &d->max_loc);
        case KEY_LOAD:
                return apply_load(p, d, value);
        case KEY_OPP:
                return config_apply_opp(p, d, value);
        case KEY_OPP_DISABLED:
                return config_apply_opp_disabled(p, d, value);
        case KEY_OVERRIDE_LIMITS:
                return parse_bool(p, value, &d->override_limits);
        case KEY_OPP_STEP:
                return set_flag(
                        p, config_parse_frequency(p, value, false, &d->opp_step), &d->opp_step_set,
                        &d->opp_step_loc);
        case KEY_PARENT:
                if (!df_name_valid(value) || strlen(value) > NAME_LEN_MAX)
                        return config_refuse(p, "'%s' is not a device name", value);
                return store_string(p, &d->parent, &d->parent_loc, value);
        case KEY_PASSIVE_MAP:
                return config_apply_passive_map(p, d, value);
        case KEY_TUNABLE:
                return apply_tunable(p, d, name, value);
        default:
                return 0;
        }
}

/* An empty value in a [device NAME] section removes what an earlier line or file set, as an empty
 * assignment resets a setting in a systemd drop-in: the device has the default again. Its path
 * cannot go. */
static int reset_device_key(struct parser *p, const struct key *k, const char *name) {
        struct df_config_device *d = &p->config->devices[p->device];

        switch (k->id) {
        case KEY_MODE:
                d->mode_set = false;
                return 0;
        case KEY_GOVERNOR:
                free(d->governor);
                d->governor = NULL;
                return 0;
        case KEY_POLLING_INTERVAL:
                d->polling_set = false;
                return 0;
        case KEY_INITIAL_FREQUENCY:
                d->initial_set = false;
                return 0;
        case KEY_MIN_FREQUENCY:
                d->min_freq = 0;
                return 0;
        case KEY_MAX_FREQUENCY:
                d->max_freq = UINT64_MAX;
                return 0;
        case KEY_LOAD:
                d->load_set = false;
                free(d->load_path);
                d->load_path = NULL;
                return 0;
        case KEY_OPP_STEP:
                d->opp_step_set = false;
                return 0;
        case KEY_OVERRIDE_LIMITS:
                d->override_limits = false;
                return 0;
        case KEY_PARENT:
                free(d->parent);
                d->parent = NULL;
                return 0;
        case KEY_TUNABLE:
                for (size_t i = 0; i < d->n_tunables; i++)
                        if (streq(d->tunables[i].name, name)) {
                                free(d->tunables[i].name);
                                memmove(d->tunables + i, d->tunables + i + 1,
                                        (d->n_tunables - i - 1) * sizeof(*d->tunables));
                                d->n_tunables--;
                                break;
                        }
                return 0;
        default:
                return config_refuse(p, "%s needs a value", name);
        }
}

/* An empty value in [daemon] restores the key's built-in value, as an empty assignment resets a
 * setting in a systemd drop-in. Like a valid value, it settles a default-mode or default-governor
 * an earlier line gave wrong. (The keys whose empty value means something else never get here.) */
static int reset_daemon_key(struct parser *p, const struct key *k) {
        const struct df_config *def = &config_daemon_defaults;
        struct df_config *c = p->config;

        switch (k->id) {
        case KEY_AUTODISCOVER:
                c->autodiscover = def->autodiscover;
                return 0;
        case KEY_DEFAULT_MODE:
                c->default_mode = def->default_mode;
                p->defaults_bad &= ~DEFAULT_MODE_BAD;
                return 0;
        case KEY_DEFAULT_GOVERNOR:
                p->defaults_bad &= ~DEFAULT_GOVERNOR_BAD;
                return store_string(p, &c->default_governor, &(struct df_location){}, config_default_governor);
        case KEY_POLLING_INTERVAL:
                c->polling_usec = def->polling_usec;
                return 0;
        case KEY_FOLLOW_POWER_PROFILES:
                c->follow_power_profiles = def->follow_power_profiles;
                return 0;
        case KEY_LIMIT:
                *(uint32_t *) ((char *) c + k->limit) = *(const uint32_t *) ((const char *) def + k->limit);
                return 0;
        default:
                return config_refuse(p, "%s needs a value", k->name);
        }
}

/* inih cuts a value at " ;" but not at " #": a '#' comment would silently become part of the value. */
static bool value_has_hash_comment(const char *v) {
        if (v[0] == '#')
                return true;
        for (const char *s = strchr(v, '#'); s; s = strchr(s + 1, '#'))
                if (config_is_space((unsigned char) s[-1]))
                        return true;
        return false;
}

/* One complete assignment (continuation lines joined) of the current section. */
static int apply(struct parser *p, const char *name, const char *value) {
        const struct key *k;

        if (p->section == SECTION_IGNORED)
                return 0;
        if (!*name)
                return config_refuse(p, "expected 'key = value' or '[section]': the key name is missing");
        if (strlen(name) > NAME_LEN_MAX)
                return config_refuse(p, "key name longer than %u bytes", NAME_LEN_MAX);
        if (p->section == SECTION_PROFILE || p->section == SECTION_THERMAL) {
                if (value_has_hash_comment(value))
                        return config_refuse(
                                p, "'#' starts a comment only at the start of a line; use ';' after a value");
                if (p->section == SECTION_THERMAL)
                        return config_apply_thermal(p, name, value);
                return config_apply_profile_line(p, name, value);
        }

        k = key_find(name);
        if (!k || p->section == SECTION_NONE ||
            !(k->where & (p->section == SECTION_DAEMON ? IN_DAEMON : IN_DEVICE)))
                return refuse_key(p, name, k);
        if (value_has_hash_comment(value))
                return config_refuse(
                        p, "'#' starts a comment only at the start of a line; use ';' after a value");
        if (!*value && !k->empty_ok)
                return p->section == SECTION_DAEMON ? reset_daemon_key(p, k) : reset_device_key(p, k, name);

        if (p->section == SECTION_DAEMON)
                return apply_daemon(p, k, value);
        return apply_device(p, k, name, value);
}

void config_flush(struct parser *p) {
        assert(p);

        _cleanup_free_ char *key = TAKE_PTR(p->key), *value = TAKE_PTR(p->value);

        if (key && value && !p->oom)
                (void) apply(p, key, value);
}
