/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration: devfreqd.conf and its drop-ins, read with libinih through a reader that counts
 * lines and checks bytes, merged by the drop-in rules into one model, then validated as a whole. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "macro.h"
#include "sysfs.h"
#include "units.h"

/* libinih's defaults are part of the format: a 200-byte line buffer holds 198 bytes, the newline
 * and the NUL; section and key names are truncated at 50 bytes with the NUL. */
#define LINE_CONTENT_MAX 198u
#define NAME_LEN_MAX 49u
#define POLLING_MIN_USEC UINT64_C(1000)
#define POLLING_MAX_USEC UINT64_C(3600000000)
#define LIMIT_MAX 1000000
#define KERNEL_GOVERNOR_LEN_MAX 15u
#define GROUP_LEN_MAX 31u

enum section_kind {
        SECTION_NONE, /* before the first header */
        SECTION_DAEMON,
        SECTION_DEVICE,
        SECTION_IGNORED, /* a header already reported as wrong: its keys are skipped */
};

/* How the reader classified the line it handed to inih, mirroring inih's own rules. */
enum line_kind {
        LINE_OTHER, /* blank, comment, section header, or refused (inih gets an empty line) */
        LINE_KEY,
        LINE_CONTINUATION,
};

struct parser {
        struct df_config *config;
        struct df_config_errors *errors;
        size_t n_errors; /* reported by this load, dropped ones included */
        bool oom;
        bool defaults_bad; /* default-mode or default-governor was refused: devices are not judged */
        bool *device_bad;  /* per device: one of its keys was refused */

        /* The file being read, from a FILE or from memory. */
        const char *file;
        FILE *f;
        const char *text;
        size_t size, pos;
        unsigned line;
        bool content; /* some byte that is not whitespace */
        char buf[LINE_CONTENT_MAX + 1];

        /* inih's state, mirrored. */
        enum line_kind kind;
        bool handled; /* inih called the handler for the line of kind LINE_KEY or LINE_CONTINUATION */
        const char *continuation; /* the continued text, inside buf */
        bool prev_name;           /* an indented line continues the previous value */
        enum section_kind section;
        size_t device;

        /* The assignment being collected: continuation lines append to it. */
        char *key;
        char *value;
        unsigned key_line;
};

static bool is_space(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_lower_alnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool startswith(const char *s, const char *prefix) {
        return strneq(s, prefix, strlen(prefix));
}

static void rstrip(char *s) {
        size_t n = strlen(s);

        while (n > 0 && is_space((unsigned char) s[n - 1]))
                s[--n] = '\0';
}

/* --- errors ----------------------------------------------------------------------------------- */

void df_config_errors_done(struct df_config_errors *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n; i++)
                free(e->messages[i]);
        *e = (struct df_config_errors){};
}

_printf_(4, 0) static void vreport(struct parser *p, const char *file, unsigned line, const char *fmt, va_list ap) {
        _cleanup_free_ char *msg = NULL;
        char *full = NULL;
        int r;

        p->n_errors++;
        if (p->errors->n >= DF_CONFIG_ERRORS_MAX) {
                p->errors->dropped++;
                return;
        }
        if (vasprintf(&msg, fmt, ap) < 0) {
                msg = NULL;
                p->oom = true;
                return;
        }
        if (line > 0)
                r = asprintf(&full, "%s:%u: %s", file, line, msg);
        else
                r = asprintf(&full, "%s: %s", file, msg);
        if (r < 0) {
                p->oom = true;
                return;
        }
        p->errors->messages[p->errors->n++] = full;
}

/* Each reporter returns -EINVAL, so call sites read "return refuse(p, …);". */

/* At a location of the model (validation). */
_printf_(3, 4) static int report_at(struct parser *p, const struct df_location *loc, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vreport(p, loc->file, loc->line, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* At a line of the file being read (0: the file as a whole). */
_printf_(3, 4) static int report_line(struct parser *p, unsigned line, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vreport(p, p->file, line, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* At the assignment being applied; the device it configures is then not validated further. */
_printf_(2, 3) static int refuse(struct parser *p, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vreport(p, p->file, p->key_line, fmt, ap);
        va_end(ap);
        if (p->section == SECTION_DEVICE)
                p->device_bad[p->device] = true;
        return -EINVAL;
}

static int oom(struct parser *p) {
        p->oom = true;
        return -ENOMEM;
}

static struct df_location here(const struct parser *p) {
        return (struct df_location){ .file = p->file, .line = p->key_line };
}

/* Whether a comes before b in reading order. */
static bool loc_before(const struct df_config *c, const struct df_location *a, const struct df_location *b) {
        size_t ia = 0, ib = 0;

        for (size_t i = 0; i < c->n_files; i++) {
                if (c->files[i] == a->file)
                        ia = i;
                if (c->files[i] == b->file)
                        ib = i;
        }
        return ia != ib ? ia < ib : a->line < b->line;
}

/* --- small parsers, each refusing with a message that says what was expected ----------------- */

static int parse_frequency(struct parser *p, const char *s, bool zero_ok, uint64_t *ret) {
        uint64_t v;
        int r;

        r = df_parse_frequency(s, &v);
        if (r == -ERANGE)
                return refuse(p, "'%s' is too large for a frequency", s);
        if (r < 0)
                return refuse(p, "'%s' is not a frequency (e.g. 800MHz, 1.2GHz)", s);
        if (v == 0 && !zero_ok)
                return refuse(p, "a frequency of 0 is not allowed here");
        *ret = v;
        return 0;
}

static int parse_polling(struct parser *p, const char *s, uint64_t *ret) {
        uint64_t v;

        if (df_parse_duration(s, &v) < 0)
                return refuse(p, "'%s' is not a duration (e.g. 100ms, 1s)", s);
        if (v < POLLING_MIN_USEC || v > POLLING_MAX_USEC)
                return refuse(p, "polling-interval '%s' is out of range (1ms to 3600s)", s);
        *ret = v;
        return 0;
}

static int parse_limit(struct parser *p, const char *key, const char *s, uint32_t *ret) {
        uint32_t v;

        if (df_safe_atou32(s, &v) < 0 || v < 1 || v > LIMIT_MAX)
                return refuse(p, "%s '%s' is not a number from 1 to %u", key, s, (unsigned) LIMIT_MAX);
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
        return refuse(p, "'%s' is not a boolean (yes or no)", s);
}

static int parse_mode(struct parser *p, const char *s, enum df_mode *ret) {
        enum df_mode m = df_mode_from_string(s);

        if (m < 0)
                return refuse(p, "'%s' is not a mode (govern or clamp)", s);
        *ret = m;
        return 0;
}

/* "conservative, ondemand, …" for messages. */
static const char *governor_names(char *buf, size_t size) {
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < df_governors_count && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i > 0 ? ", " : "", df_governors[i]->name);
        return buf;
}

static bool tunable_known(const char *name) {
        for (size_t i = 0; i < df_governors_count; i++)
                if (df_governor_tunable_index(df_governors[i], name) >= 0)
                        return true;
        return false;
}

/* The kernel's list is known only at attach; its names fit DEVFREQ_NAME_LEN/CPUFREQ_NAME_LEN. */
static bool kernel_governor_name_valid(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > KERNEL_GOVERNOR_LEN_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_lower_alnum(s[i]) && s[i] != '_' && s[i] != '-') /* msm-adreno-tz */
                        return false;
        return true;
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

/* Grow a heap array by one zeroed element and point at it; NULL on failure (the array is unchanged). */
#define GROW(array, n)                                                                                       \
        __extension__({                                                                                      \
                __typeof__(array) _a = reallocarray((array), (n) + 1, sizeof(*(array)));                     \
                if (_a) {                                                                                    \
                        (array) = _a;                                                                        \
                        memset(&_a[n], 0, sizeof(*_a));                                                      \
                }                                                                                            \
                _a ? &_a[n] : NULL;                                                                          \
        })

static void free_strv(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static int store_string(struct parser *p, char **dst, struct df_location *loc, const char *value) {
        char *copy = strdup(value);

        if (!copy)
                return oom(p);
        free(*dst);
        *dst = copy;
        *loc = here(p);
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
        KEY_MAX_REQUESTS_PER_CLIENT,
        KEY_MAX_REQUESTS,
        KEY_MAX_CLIENTS,
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
        KEY_TUNABLE, /* not in the table: any tunable name of a governor */
};

#define IN_DAEMON 1u
#define IN_DEVICE 2u

static const struct key {
        const char *name;
        enum key_id id;
        unsigned where;
        bool empty_ok; /* lists (empty clears them) and passive-map (empty: no map) */
} keys[] = {
        { "autodiscover", KEY_AUTODISCOVER, IN_DAEMON, false },
        { "default-mode", KEY_DEFAULT_MODE, IN_DAEMON, false },
        { "default-governor", KEY_DEFAULT_GOVERNOR, IN_DAEMON, false },
        { "polling-interval", KEY_POLLING_INTERVAL, IN_DAEMON | IN_DEVICE, false },
        { "allow-groups", KEY_ALLOW_GROUPS, IN_DAEMON, true },
        { "request-groups", KEY_REQUEST_GROUPS, IN_DAEMON, true },
        { "max-requests-per-client", KEY_MAX_REQUESTS_PER_CLIENT, IN_DAEMON, false },
        { "max-requests", KEY_MAX_REQUESTS, IN_DAEMON, false },
        { "max-clients", KEY_MAX_CLIENTS, IN_DAEMON, false },
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
};

static const struct key tunable_key = { NULL, KEY_TUNABLE, IN_DEVICE, false };

static const struct key *key_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (streq(keys[i].name, name))
                        return &keys[i];
        return tunable_known(name) ? &tunable_key : NULL;
}

/* A key that is unknown or in the wrong place: say where it belongs, or what was probably meant. */
static int refuse_key(struct parser *p, const char *name, const struct key *k) {
        const char *sec = p->section == SECTION_DAEMON ? "[daemon]" : "[device NAME]";
        char alt[NAME_LEN_MAX + 1];

        if (k && p->section == SECTION_NONE)
                return refuse(
                        p, "key '%s' comes before any section header; put it in %s", name,
                        k->where & IN_DAEMON ? "[daemon]" : "a [device NAME] section");
        if (k)
                return refuse(
                        p, "key '%s' belongs in %s", name,
                        k->where & IN_DAEMON ? "the [daemon] section" : "a [device NAME] section");

        /* "polling_interval" for "polling-interval", "up-threshold" for "up_threshold". */
        snprintf(alt, sizeof(alt), "%s", name);
        for (char *s = alt; *s; s++)
                if (*s == '_' || *s == '-')
                        *s = *s == '_' ? '-' : '_';
        if (key_find(alt))
                return refuse(p, "unknown key '%s' (did you mean '%s'?)", name, alt);
        if (p->section == SECTION_NONE)
                return refuse(p, "unknown key '%s' before any section header", name);
        return refuse(p, "unknown key '%s' in %s", name, sec);
}

/* Each word of `value` appended to a group list, once; an empty value clears the list. */
static int apply_groups(struct parser *p, const char *value, char ***list, size_t *n) {
        _cleanup_free_ char *copy = NULL;
        char *save = NULL;

        if (!*value) {
                free_strv(*list, *n);
                *list = NULL;
                *n = 0;
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return oom(p);
        /* Check every word before appending any, so a refused line changes nothing. */
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
                if (!group_name_valid(w))
                        return refuse(p, "'%s' is not a group name (group lists are separated by spaces)", w);

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
                        return oom(p);
                (*n)++;
        }
        return 0;
}

static int apply_default_governor(struct parser *p, const char *value) {
        const struct df_governor_ops *ops = df_governor_find(value);
        char names[256];

        p->defaults_bad = true;
        if (!ops)
                return refuse(
                        p, "unknown governor '%s' (one of %s)", value, governor_names(names, sizeof(names)));
        /* Every govern-mode device without governor = would need its own parent. */
        if (ops == &df_governor_passive)
                return refuse(p, "default-governor cannot be passive: it needs a parent for each device");
        p->defaults_bad = false;
        return store_string(p, &p->config->default_governor, &(struct df_location){}, value);
}

static int apply_daemon(struct parser *p, const struct key *k, const char *value) {
        struct df_config *c = p->config;

        switch (k->id) {
        case KEY_AUTODISCOVER:
                return parse_bool(p, value, &c->autodiscover);
        case KEY_DEFAULT_MODE:
                if (parse_mode(p, value, &c->default_mode) < 0)
                        p->defaults_bad = true;
                return 0;
        case KEY_DEFAULT_GOVERNOR:
                return apply_default_governor(p, value);
        case KEY_POLLING_INTERVAL:
                return parse_polling(p, value, &c->polling_usec);
        case KEY_ALLOW_GROUPS:
                return apply_groups(p, value, &c->allow_groups, &c->n_allow_groups);
        case KEY_REQUEST_GROUPS:
                return apply_groups(p, value, &c->request_groups, &c->n_request_groups);
        case KEY_MAX_REQUESTS_PER_CLIENT:
                return parse_limit(p, k->name, value, &c->max_requests_per_client);
        case KEY_MAX_REQUESTS:
                return parse_limit(p, k->name, value, &c->max_requests);
        case KEY_MAX_CLIENTS:
                return parse_limit(p, k->name, value, &c->max_clients);
        default:
                return 0;
        }
}

/* One token after the frequency of an opp line: a voltage or latency=DURATION, each at most once. */
static int apply_opp_token(struct parser *p, const char *w, struct df_config_opp *opp) {
        uint32_t uv;

        if (startswith(w, "latency=")) {
                if (opp->latency_us > 0)
                        return refuse(p, "the operating point has two latencies");
                if (df_parse_latency(w + 8, &opp->latency_us) < 0 || opp->latency_us == 0)
                        return refuse(
                                p, "'%s' is not a latency (latency=DURATION above 0, e.g. latency=200us)", w);
                return 0;
        }
        if (df_parse_voltage(w, &uv) < 0 || uv == 0)
                return refuse(
                        p,
                        "'%s' is neither a voltage (e.g. 825mV, 1.05V) nor latency=DURATION; an operating point "
                        "is 'FREQ [VOLTAGE] [latency=DURATION]'",
                        w);
        if (opp->microvolt > 0)
                return refuse(p, "'%s': the operating point already has a voltage", w);
        opp->microvolt = uv;
        return 0;
}

static int apply_opp(struct parser *p, struct df_config_device *d, const char *value) {
        struct df_config_opp opp = { .loc = here(p) }, *slot;
        _cleanup_free_ char *copy = NULL;
        char *save = NULL, *w;
        int r;

        copy = strdup(value);
        if (!copy)
                return oom(p);
        w = strtok_r(copy, " \t", &save);
        if (!w) {
                free(d->opps);
                d->opps = NULL;
                d->n_opps = 0;
                return 0;
        }
        r = parse_frequency(p, w, false, &opp.freq);
        if (r < 0)
                return r;
        while ((w = strtok_r(NULL, " \t", &save))) {
                r = apply_opp_token(p, w, &opp);
                if (r < 0)
                        return r;
        }
        slot = GROW(d->opps, d->n_opps);
        if (!slot)
                return oom(p);
        *slot = opp;
        d->n_opps++;
        return 0;
}

static int apply_opp_disabled(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ char *copy = NULL;
        char *save = NULL;
        uint64_t f;
        int r;

        if (!*value) {
                free(d->opp_disabled);
                d->opp_disabled = NULL;
                d->n_opp_disabled = 0;
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return oom(p);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                r = parse_frequency(p, w, false, &f);
                if (r < 0)
                        return r;
        }
        strcpy(copy, value);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                struct df_config_frequency *slot = GROW(d->opp_disabled, d->n_opp_disabled);

                if (!slot)
                        return oom(p);
                (void) df_parse_frequency(w, &slot->freq);
                slot->loc = here(p);
                d->n_opp_disabled++;
        }
        return 0;
}

/* "P:C P:C …" on one line; a later line replaces the map, an empty one removes it. */
static int apply_passive_map(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ struct df_passive_pair *map = NULL;
        _cleanup_free_ char *copy = NULL;
        char buf[DF_FREQ_STRING_MAX];
        char *save = NULL;
        size_t n = 0;
        int r;

        copy = strdup(value);
        if (!copy)
                return oom(p);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                char *colon = strchr(w, ':');
                struct df_passive_pair *slot;

                if (!colon || strchr(colon + 1, ':'))
                        return refuse(p, "'%s' is not a PARENT:CHILD frequency pair (e.g. 400MHz:200MHz)", w);
                *colon = '\0';
                slot = GROW(map, n);
                if (!slot)
                        return oom(p);
                r = parse_frequency(p, w, false, &slot->parent);
                if (r < 0)
                        return r;
                r = parse_frequency(p, colon + 1, false, &slot->child);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n; i++)
                        if (map[i].parent == slot->parent)
                                return refuse(
                                        p, "passive-map names the parent frequency %s twice",
                                        df_format_frequency(buf, slot->parent));
                n++;
        }
        free(d->passive_map);
        d->passive_map = TAKE_PTR(map);
        d->n_passive_map = n;
        d->passive_map_loc = here(p);
        return 0;
}

static int apply_tunable(struct parser *p, struct df_config_device *d, const char *name, const char *value) {
        struct df_config_tunable *t = NULL;
        uint32_t v;

        if (df_safe_atou32(value, &v) < 0)
                return refuse(
                        p, "tunable %s: '%s' is not a whole number from 0 to %" PRIu32, name, value,
                        UINT32_MAX);
        for (size_t i = 0; i < d->n_tunables && !t; i++)
                if (streq(d->tunables[i].name, name))
                        t = &d->tunables[i];
        if (!t) {
                t = GROW(d->tunables, d->n_tunables);
                if (!t || !(t->name = strdup(name)))
                        return oom(p);
                d->n_tunables++;
        }
        t->value = v;
        t->loc = here(p);
        return 0;
}

/* A trailing '/' is allowed and ignored; the path is kept as written. */
static int apply_path(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ char *trimmed = strdup(value);
        size_t n;

        if (!trimmed)
                return oom(p);
        n = strlen(trimmed);
        if (n > 1 && trimmed[n - 1] == '/')
                trimmed[n - 1] = '\0';
        if (!startswith(trimmed, "/sys/"))
                return refuse(p, "device path '%s' is outside /sys: it must start with /sys/", value);
        if (df_path_check(trimmed) < 0)
                return refuse(
                        p,
                        "'%s' is not a usable device path (no '.', '..' or empty components, no control characters)",
                        value);
        return store_string(p, &d->path, &d->path_loc, value);
}

static int apply_load(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ char *path = NULL;
        enum df_load_kind kind;
        int r;

        r = df_load_spec_parse(value, &kind, &path);
        if (r == -ENOMEM)
                return oom(p);
        if (r < 0)
                return refuse(
                        p,
                        "'%s' is not a load source (none, proc-stat, counters:PATH or percent:PATH, PATH under /sys/ "
                        "or /proc/)",
                        value);
        free(d->load_path);
        d->load_path = TAKE_PTR(path);
        d->load = kind;
        d->load_set = true;
        d->load_loc = here(p);
        return 0;
}

/* Set a single value and its location when `r` says it parsed. */
static int set_flag(struct parser *p, int r, bool *flag, struct df_location *loc) {
        if (r < 0)
                return r;
        if (flag)
                *flag = true;
        *loc = here(p);
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
                        p, parse_frequency(p, value, false, &d->initial_freq), &d->initial_set,
                        &d->initial_loc);
        case KEY_MIN_FREQUENCY:
                return set_flag(p, parse_frequency(p, value, true, &d->min_freq), NULL, &d->min_loc);
        case KEY_MAX_FREQUENCY:
                return set_flag(p, parse_frequency(p, value, false, &d->max_freq), NULL, &d->max_loc);
        case KEY_LOAD:
                return apply_load(p, d, value);
        case KEY_OPP:
                return apply_opp(p, d, value);
        case KEY_OPP_DISABLED:
                return apply_opp_disabled(p, d, value);
        case KEY_OPP_STEP:
                return set_flag(
                        p, parse_frequency(p, value, false, &d->opp_step), &d->opp_step_set, &d->opp_step_loc);
        case KEY_PARENT:
                if (!df_name_valid(value) || strlen(value) > NAME_LEN_MAX)
                        return refuse(p, "'%s' is not a device name", value);
                return store_string(p, &d->parent, &d->parent_loc, value);
        case KEY_PASSIVE_MAP:
                return apply_passive_map(p, d, value);
        case KEY_TUNABLE:
                return apply_tunable(p, d, name, value);
        default:
                return 0;
        }
}

/* inih cuts a value at " ;" but not at " #": a '#' comment would silently become part of the value. */
static bool value_has_hash_comment(const char *v) {
        if (v[0] == '#')
                return true;
        for (const char *s = strchr(v, '#'); s; s = strchr(s + 1, '#'))
                if (is_space((unsigned char) s[-1]))
                        return true;
        return false;
}

/* One complete assignment (continuation lines joined) of the current section. */
static int apply(struct parser *p, const char *name, const char *value) {
        const struct key *k;

        if (p->section == SECTION_IGNORED)
                return 0;
        if (!*name)
                return refuse(p, "expected 'key = value' or '[section]': the key name is missing");
        if (strlen(name) > NAME_LEN_MAX)
                return refuse(p, "key name longer than %u bytes", NAME_LEN_MAX);

        k = key_find(name);
        if (!k || p->section == SECTION_NONE ||
            !(k->where & (p->section == SECTION_DAEMON ? IN_DAEMON : IN_DEVICE)))
                return refuse_key(p, name, k);
        if (value_has_hash_comment(value))
                return refuse(p, "'#' starts a comment only at the start of a line; use ';' after a value");
        if (!*value && !k->empty_ok)
                return refuse(p, "%s needs a value", name);

        if (p->section == SECTION_DAEMON)
                return apply_daemon(p, k, value);
        return apply_device(p, k, name, value);
}

static void flush(struct parser *p) {
        _cleanup_free_ char *key = TAKE_PTR(p->key), *value = TAKE_PTR(p->value);

        if (key && value && !p->oom)
                (void) apply(p, key, value);
}

/* --- sections --------------------------------------------------------------------------------- */

static int device_get(struct parser *p, const char *name, size_t *ret) {
        struct df_config *c = p->config;
        struct df_config_device *d;

        for (size_t i = 0; i < c->n_devices; i++)
                if (streq(c->devices[i].name, name)) {
                        *ret = i;
                        return 0;
                }
        if (!GROW(p->device_bad, c->n_devices))
                return oom(p);
        d = GROW(c->devices, c->n_devices);
        if (!d)
                return oom(p);
        d->name = strdup(name);
        if (!d->name)
                return oom(p);
        d->loc = (struct df_location){ .file = p->file, .line = p->line };
        d->max_freq = UINT64_MAX;
        d->load = DF_LOAD_NONE;
        d->opp_step = DF_CONFIG_DEFAULT_OPP_STEP;
        *ret = c->n_devices++;
        return 0;
}

/* A "[…]" header: `name` is the text between the brackets, `rest` what follows the ']'. */
static int section_begin(struct parser *p, char *name, const char *rest) {
        size_t n = strlen(name);
        char *s;

        p->section = SECTION_IGNORED;
        rest += strspn(rest, " \t");
        if (*rest == '#')
                report_line(
                        p, p->line, "'#' starts a comment only at the start of a line; use ';' after a value");
        else if (*rest && *rest != ';')
                report_line(p, p->line, "unexpected text after ']'");

        /* inih would truncate it silently. */
        if (n > NAME_LEN_MAX)
                return report_line(p, p->line, "section name longer than %u bytes", NAME_LEN_MAX);
        rstrip(name);
        name += strspn(name, " \t");

        if (streq(name, "daemon")) {
                p->section = SECTION_DAEMON;
                return 0;
        }
        if (!startswith(name, "device") || (name[6] && !is_space((unsigned char) name[6])))
                return report_line(
                        p, p->line, "unknown section [%s]; the sections are [daemon] and [device NAME]", name);
        s = name + 6;
        s += strspn(s, " \t");
        if (!*s)
                return report_line(p, p->line, "[device] needs a name: [device NAME]");
        if (!df_name_valid(s))
                return report_line(
                        p, p->line, "'%s' is not a device name (printable, no '/', not '.' or '..')", s);
        if (device_get(p, s, &p->device) < 0)
                return -ENOMEM;
        p->section = SECTION_DEVICE;
        return 0;
}

/* --- the reader ------------------------------------------------------------------------------- */

static int source_getc(struct parser *p) {
        if (p->f)
                return getc_unlocked(p->f);
        if (p->pos >= p->size)
                return EOF;
        return (unsigned char) p->text[p->pos++];
}

static bool utf8_valid(const unsigned char *s, size_t n) {
        for (size_t i = 0; i < n;) {
                uint32_t cp, min;
                size_t len;

                if (s[i] < 0x80) {
                        i++;
                        continue;
                }
                if ((s[i] & 0xE0) == 0xC0)
                        len = 2, cp = s[i] & 0x1Fu, min = 0x80;
                else if ((s[i] & 0xF0) == 0xE0)
                        len = 3, cp = s[i] & 0x0Fu, min = 0x800;
                else if ((s[i] & 0xF8) == 0xF0)
                        len = 4, cp = s[i] & 0x07u, min = 0x10000;
                else
                        return false;
                if (n - i < len)
                        return false;
                for (size_t k = 1; k < len; k++) {
                        if ((s[i + k] & 0xC0) != 0x80)
                                return false;
                        cp = cp << 6 | (s[i + k] & 0x3Fu);
                }
                /* Overlong forms, surrogates and values beyond Unicode are not UTF-8. */
                if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                        return false;
                i += len;
        }
        return true;
}

/* NUL, control characters (tab allowed, CR only before the newline), and UTF-8. */
static bool line_bytes_valid(struct parser *p, size_t len) {
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char) p->buf[i];

                if (c == '\0') {
                        report_line(p, p->line, "contains a NUL byte");
                        return false;
                }
                if ((c < 0x20 && c != '\t' && !(c == '\r' && i == len - 1)) || c == 0x7f) {
                        report_line(p, p->line, "contains the control character 0x%02x", c);
                        return false;
                }
        }
        if (!utf8_valid((const unsigned char *) p->buf, len)) {
                report_line(p, p->line, "not valid UTF-8");
                return false;
        }
        return true;
}

/* inih's find_chars_or_comment(): the first of `chars`, or a ';' after whitespace, or the end. */
static char *find_chars_or_comment(char *s, const char *chars) {
        bool was_space = false;

        for (; *s; s++) {
                if ((chars && strchr(chars, *s)) || (was_space && *s == ';'))
                        break;
                was_space = is_space((unsigned char) *s);
        }
        return s;
}

static int refuse_line(struct parser *p) {
        return report_line(p, p->line, "expected 'key = value' or '[section]'");
}

/* Classify a line the way ini_parse_stream() does; false: refused, inih gets an empty line. */
static bool classify(struct parser *p) {
        _cleanup_free_ char *name = NULL;
        char *start = p->buf, *end;

        if (p->line == 1 && startswith(start, "\xEF\xBB\xBF"))
                start += 3;
        start += strspn(start, " \t\r");
        rstrip(start);

        if (*start == '\0' || *start == ';' || *start == '#')
                return true;
        if (p->prev_name && start > p->buf) {
                /* Stripped here: some libinih versions keep an inline comment on continuation lines. */
                *find_chars_or_comment(start, NULL) = '\0';
                rstrip(start);
                p->continuation = start;
                p->kind = LINE_CONTINUATION;
                return true;
        }
        if (*start != '[') {
                end = find_chars_or_comment(start, "=:");
                if (*end != '=' && *end != ':') {
                        refuse_line(p);
                        return false;
                }
                flush(p);
                p->prev_name = end > start;
                p->kind = LINE_KEY;
                return true;
        }

        end = find_chars_or_comment(start + 1, "]");
        if (*end != ']') {
                refuse_line(p);
                return false;
        }
        flush(p);
        p->prev_name = false;
        name = strndup(start + 1, (size_t) (end - start - 1));
        if (!name) {
                (void) oom(p);
                return false;
        }
        (void) section_begin(p, name, end + 1);
        return true;
}

/* inih's reader: one line a call, in bounded memory whatever its length. A refused line reaches inih
 * empty, which changes none of its state, so its idea of the previous key stays ours. */
static char *reader(char *str, int num, void *stream) {
        struct parser *p = stream;
        bool newline = false, overlong = false;
        size_t len = 0, indent;
        int c;

        if (p->kind != LINE_OTHER && !p->handled)
                refuse_line(p); /* inih disagreed with our reading of the previous line */
        p->kind = LINE_OTHER;
        p->handled = false;

        while ((c = source_getc(p)) != EOF) {
                if (c == '\n') {
                        newline = true;
                        break;
                }
                if (!is_space(c))
                        p->content = true;
                if (len < LINE_CONTENT_MAX)
                        p->buf[len++] = (char) c;
                else
                        overlong = true;
        }
        if (len == 0 && !newline)
                return NULL;
        p->line++;
        p->buf[len] = '\0';
        str[0] = '\0';

        if (overlong || num < 0 || len + 1 > (size_t) num)
                report_line(p, p->line, "line longer than %u bytes", LINE_CONTENT_MAX + 1);
        else if (line_bytes_valid(p, len) && classify(p)) {
                memcpy(str, p->buf, len + 1);
                return str;
        }

        /* A refused section header leaves its section: its keys must not land in the previous one. */
        indent = strspn(p->buf, " \t");
        if (p->buf[indent] == '[' && (indent == 0 || !p->prev_name)) {
                flush(p);
                p->prev_name = false;
                p->section = SECTION_IGNORED;
        }
        return str;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        struct parser *p = user;
        char *joined;

        p->handled = true;
        if (p->oom)
                return 1;
        if (p->kind == LINE_KEY) {
                free(p->key);
                free(p->value);
                p->key = strdup(name);
                p->value = strdup(value);
                p->key_line = p->line;
                if (!p->key || !p->value)
                        (void) oom(p);
        } else if (p->kind == LINE_CONTINUATION && p->key) {
                if (asprintf(&joined, "%s%s%s", p->value, *p->value ? " " : "", p->continuation) < 0) {
                        (void) oom(p);
                        return 1;
                }
                free(p->value);
                p->value = joined;
        }
        return 1; /* errors are ours to collect; inih's count would stop at the first */
}

/* Parse one source, an open FILE or memory, as the next file of the model. */
static void parse_source(struct parser *p, const char *path, FILE *f, const char *text, size_t size) {
        char **slot;
        int r;

        slot = GROW(p->config->files, p->config->n_files);
        if (!slot || !(*slot = strdup(path))) {
                (void) oom(p);
                return;
        }
        p->file = p->config->files[p->config->n_files++];
        p->f = f;
        p->text = text;
        p->size = size;
        p->pos = 0;
        p->line = 0;
        p->content = false;
        p->kind = LINE_OTHER;
        p->prev_name = false;
        p->section = SECTION_NONE;

        r = ini_parse_stream(reader, p, handler, p);
        if (p->kind != LINE_OTHER && !p->handled)
                refuse_line(p);
        p->kind = LINE_OTHER;
        flush(p);
        if (r == -2)
                (void) oom(p);
        else if (r > 0)
                report_line(p, (unsigned) r, "expected 'key = value' or '[section]'"); /* we refuse first */
        if (f && ferror(f))
                report_line(p, 0, "read error");
        else if (!p->content)
                report_line(p, 1, "the file is empty");
}

/* `missing_ok`: the main file may be absent (all defaults). */
static void parse_file(struct parser *p, const char *path, bool missing_ok) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        FILE *f;

        p->file = path;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno != ENOENT || !missing_ok)
                        report_line(p, 0, "cannot open: %s", strerror(errno));
                return;
        }
        if (fstat(fd, &st) < 0) {
                report_line(p, 0, "cannot stat: %s", strerror(errno));
                return;
        }
        if (!S_ISREG(st.st_mode)) {
                report_line(p, 0, "not a regular file");
                return;
        }
        f = fdopen(fd, "re");
        if (!f) {
                (void) oom(p);
                return;
        }
        TAKE_FD(fd);
        parse_source(p, path, f, NULL, 0);
        fclose(f);
}

static int strcmp_ptr(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Regular files, not hidden, named "*.conf", in strcmp order (not the locale's). */
static void parse_dropins(struct parser *p, const char *dir) {
        char **names = NULL;
        struct dirent *de;
        size_t n = 0;
        DIR *d;

        d = opendir(dir);
        if (!d) {
                p->file = dir;
                if (errno != ENOENT)
                        report_line(p, 0, "cannot read directory: %s", strerror(errno));
                return;
        }
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                struct stat st;
                char **slot;

                if (de->d_name[0] == '.' || len <= 5 || !streq(de->d_name + len - 5, ".conf"))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
                        continue; /* directories, dangling links */
                slot = GROW(names, n);
                if (!slot || asprintf(slot, "%s/%s", dir, de->d_name) < 0) {
                        (void) oom(p);
                        break;
                }
                n++;
        }
        closedir(d);
        if (n > 0)
                qsort(names, n, sizeof(char *), strcmp_ptr);
        for (size_t i = 0; i < n && !p->oom; i++)
                parse_file(p, names[i], false);
        free_strv(names, n);
}

/* --- validation of the merged whole ----------------------------------------------------------- */

static const struct df_config_device *passive_parent(const struct df_config *c, const struct df_config_device *d) {
        if (df_config_device_mode(c, d) != DF_MODE_GOVERN || !d->parent ||
            df_governor_find(df_config_device_governor(c, d)) != &df_governor_passive)
                return NULL;
        return df_config_find_device(c, d->parent);
}

static bool opps_contain(const struct df_config_device *d, uint64_t f) {
        for (size_t i = 0; i < d->n_opps; i++)
                if (d->opps[i].freq == f)
                        return true;
        return false;
}

static int validate_passive(struct parser *p, const struct df_config_device *d) {
        const struct df_config *c = p->config;
        const struct df_config_device *parent, *cur = d;
        size_t self = (size_t) (d - c->devices), lowest = self;
        char buf[DF_FREQ_STRING_MAX];

        if (!d->parent)
                return report_at(
                        p, d->governor ? &d->governor_loc : &d->loc,
                        "device '%s': governor passive needs parent = NAME, the device it follows", d->name);
        parent = df_config_find_device(c, d->parent);
        if (!parent)
                return report_at(p, &d->parent_loc, "parent '%s' is not a configured device", d->parent);
        if (parent == d)
                return report_at(p, &d->parent_loc, "device '%s' cannot follow itself", d->name);

        /* A cycle is reported once, at the member configured first. */
        for (size_t steps = 0; steps < c->n_devices && (cur = passive_parent(c, cur)); steps++) {
                lowest = MIN(lowest, (size_t) (cur - c->devices));
                if (cur == d)
                        return lowest == self ?
                                report_at(p, &d->parent_loc, "the parents of device '%s' form a cycle", d->name) :
                                0;
        }

        for (size_t i = 0; i < d->n_passive_map; i++) {
                if (parent->n_opps > 0 && !opps_contain(parent, d->passive_map[i].parent))
                        return report_at(
                                p, &d->passive_map_loc,
                                "passive-map: %s is not an operating point of parent '%s'",
                                df_format_frequency(buf, d->passive_map[i].parent), parent->name);
                if (d->n_opps > 0 && !opps_contain(d, d->passive_map[i].child))
                        return report_at(
                                p, &d->passive_map_loc,
                                "passive-map: %s is not an operating point of device '%s'",
                                df_format_frequency(buf, d->passive_map[i].child), d->name);
        }
        return 0;
}

/* Checked as one set after defaults, so the order of the lines does not matter. */
static int
validate_tunables(struct parser *p, const struct df_config_device *d, const struct df_governor_ops *ops) {
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {};
        const struct df_config_tunable *last = NULL;
        char list[256] = "";
        size_t n = 0;
        int r = 0;

        for (size_t i = 0; i < ops->n_tunables; i++) {
                values[i] = ops->tunables[i].def;
                n += (size_t) snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", ops->tunables[i].name);
        }
        for (size_t i = 0; i < d->n_tunables; i++) {
                const struct df_config_tunable *t = &d->tunables[i];
                int k = df_governor_tunable_index(ops, t->name);

                if (k < 0)
                        r = report_at(
                                p, &t->loc, "'%s' is not a tunable of governor %s (%s%s)", t->name, ops->name,
                                ops->n_tunables ? "its tunables: " : "it has none", list);
                else if (t->value < ops->tunables[k].min || t->value > ops->tunables[k].max)
                        r = report_at(
                                p, &t->loc, "%s = %" PRIu32 " is out of range (%" PRIu32 " to %" PRIu32 ")",
                                t->name, t->value, ops->tunables[k].min, ops->tunables[k].max);
                else
                        values[k] = t->value;
                if (!last || loc_before(p->config, &last->loc, &t->loc))
                        last = t;
        }
        if (r < 0 || !last || df_governor_validate(ops, values) >= 0)
                return r;

        n = 0;
        for (size_t i = 0; i < ops->n_tunables; i++)
                n += (size_t) snprintf(
                        list + n, sizeof(list) - n, "%s%s = %" PRIu32, i ? ", " : "", ops->tunables[i].name,
                        values[i]);
        return report_at(p, &last->loc, "the tunables of governor %s do not fit together: %s", ops->name, list);
}

static void validate_clamp(struct parser *p, const struct df_config_device *d) {
        if (d->governor && !kernel_governor_name_valid(d->governor))
                report_at(
                        p, &d->governor_loc, "'%s' is not a kernel governor name (1 to %u of a-z, 0-9, _, -)",
                        d->governor, KERNEL_GOVERNOR_LEN_MAX);
        for (size_t i = 0; i < d->n_tunables; i++)
                report_at(
                        p, &d->tunables[i].loc,
                        "tunable '%s' applies only in govern mode; device '%s' is in clamp mode",
                        d->tunables[i].name, d->name);
        if (d->parent)
                report_at(p, &d->parent_loc, "parent applies only to the passive governor in govern mode");
        if (d->n_passive_map > 0)
                report_at(
                        p, &d->passive_map_loc,
                        "passive-map applies only to the passive governor in govern mode");
}

static enum df_load_kind device_load(const struct df_config_device *d) {
        if (d->load_set)
                return d->load;
        return df_config_path_is_cpufreq(d->path) ? DF_LOAD_PROC_STAT : DF_LOAD_NONE;
}

static void validate_governor(struct parser *p, const struct df_config_device *d) {
        const struct df_config *c = p->config;
        const struct df_governor_ops *ops;
        const char *name;
        char names[256];

        if (df_config_device_mode(c, d) == DF_MODE_CLAMP)
                return validate_clamp(p, d);

        name = df_config_device_governor(c, d);
        ops = df_governor_find(name);
        if (!ops) {
                report_at(
                        p, &d->governor_loc, "unknown governor '%s' (one of %s)", name,
                        governor_names(names, sizeof(names)));
                return;
        }
        if (ops->polls && d->path && device_load(d) == DF_LOAD_NONE)
                report_at(
                        p,
                        d->load_set         ? &d->load_loc :
                                d->governor ? &d->governor_loc :
                                              &d->loc,
                        "device '%s': governor %s needs a load source; set load = counters:PATH, percent:PATH or "
                        "proc-stat",
                        d->name, ops->name);
        (void) validate_tunables(p, d, ops);
        if (ops == &df_governor_passive) {
                (void) validate_passive(p, d);
                return;
        }
        if (d->parent)
                report_at(
                        p, &d->parent_loc, "parent applies only to the passive governor; device '%s' uses %s",
                        d->name, ops->name);
        if (d->n_passive_map > 0)
                report_at(
                        p, &d->passive_map_loc,
                        "passive-map applies only to the passive governor; device '%s' uses %s", d->name,
                        ops->name);
}

static int opp_cmp(const void *a, const void *b, void *userdata) {
        const struct df_config_opp *x = a, *y = b;

        if (x->freq != y->freq)
                return x->freq < y->freq ? -1 : 1;
        if (loc_before(userdata, &x->loc, &y->loc))
                return -1;
        return loc_before(userdata, &y->loc, &x->loc) ? 1 : 0;
}

/* Sorts the points ascending, as the model promises. */
static int validate_opps(struct parser *p, struct df_config_device *d) {
        char buf[DF_FREQ_STRING_MAX];
        size_t disabled = 0;

        if (d->n_opps == 0)
                return 0;
        qsort_r(d->opps, d->n_opps, sizeof(*d->opps), opp_cmp, p->config);
        for (size_t i = 1; i < d->n_opps; i++)
                if (d->opps[i].freq == d->opps[i - 1].freq)
                        return report_at(
                                p, &d->opps[i].loc, "operating point %s is listed twice (first at %s:%u)",
                                df_format_frequency(buf, d->opps[i].freq), d->opps[i - 1].loc.file,
                                d->opps[i - 1].loc.line);

        for (size_t i = 0; i < d->n_opp_disabled; i++)
                if (!opps_contain(d, d->opp_disabled[i].freq))
                        return report_at(
                                p, &d->opp_disabled[i].loc, "opp-disabled: %s is not one of the opp = points",
                                df_format_frequency(buf, d->opp_disabled[i].freq));
        for (size_t i = 0; i < d->n_opps; i++)
                for (size_t k = 0; k < d->n_opp_disabled; k++)
                        if (d->opp_disabled[k].freq == d->opps[i].freq) {
                                disabled++;
                                break;
                        }
        if (disabled == d->n_opps)
                return report_at(
                        p, &d->opp_disabled[d->n_opp_disabled - 1].loc,
                        "opp-disabled disables every operating point of device '%s'", d->name);
        return 0;
}

static int validate_range(struct parser *p, const struct df_config_device *d) {
        char a[DF_FREQ_STRING_MAX], b[DF_FREQ_STRING_MAX], x[DF_FREQ_STRING_MAX];

        if (d->min_freq > d->max_freq)
                return report_at(
                        p, loc_before(p->config, &d->min_loc, &d->max_loc) ? &d->max_loc : &d->min_loc,
                        "min-frequency %s is above max-frequency %s", df_format_frequency(a, d->min_freq),
                        df_format_frequency(b, d->max_freq));
        if (d->initial_set && (d->initial_freq < d->min_freq || d->initial_freq > d->max_freq))
                return report_at(
                        p, &d->initial_loc,
                        "initial-frequency %s is outside min-frequency %s to max-frequency %s",
                        df_format_frequency(x, d->initial_freq), df_format_frequency(a, d->min_freq),
                        d->max_freq == UINT64_MAX ? "(none)" : df_format_frequency(b, d->max_freq));
        return 0;
}

/* A device is known by its path as written, without a trailing '/'. */
static bool same_path(const char *a, const char *b) {
        size_t na = strlen(a), nb = strlen(b);

        if (na > 1 && a[na - 1] == '/')
                na--;
        if (nb > 1 && b[nb - 1] == '/')
                nb--;
        return na == nb && strneq(a, b, na);
}

static void validate_path(struct parser *p, const struct df_config_device *d) {
        const struct df_config *c = p->config;

        if (!d->path) {
                report_at(p, &d->loc, "device '%s' has no path (e.g. path = /sys/class/devfreq/NODE)", d->name);
                return;
        }
        for (const struct df_config_device *o = c->devices; o < d; o++)
                if (o->path && same_path(o->path, d->path)) {
                        report_at(
                                p, &d->path_loc, "device '%s' has the same path as device '%s' (%s:%u)",
                                d->name, o->name, o->path_loc.file, o->path_loc.line);
                        return;
                }
}

/* Devices with a refused key were reported already; judging their remains would only add noise. */
static void validate(struct parser *p) {
        for (size_t i = 0; i < p->config->n_devices; i++) {
                struct df_config_device *d = &p->config->devices[i];

                if (p->device_bad[i])
                        continue;
                validate_path(p, d);
                if (!p->defaults_bad)
                        validate_governor(p, d);
                (void) validate_opps(p, d);
                (void) validate_range(p, d);
        }
}

/* --- loading ---------------------------------------------------------------------------------- */

static struct df_config *config_new(void) {
        struct df_config *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        c->autodiscover = true;
        c->default_mode = DF_MODE_CLAMP;
        c->polling_usec = DF_CONFIG_DEFAULT_POLLING_USEC;
        c->max_requests_per_client = 64;
        c->max_requests = 4096;
        c->max_clients = 256;
        c->default_governor = strdup("simple_ondemand");
        if (!c->default_governor)
                return df_config_free(c);
        return c;
}

static void device_done(struct df_config_device *d) {
        free(d->name);
        free(d->path);
        free(d->governor);
        free(d->load_path);
        for (size_t i = 0; i < d->n_tunables; i++)
                free(d->tunables[i].name);
        free(d->tunables);
        free(d->opps);
        free(d->opp_disabled);
        free(d->parent);
        free(d->passive_map);
}

struct df_config *df_config_free(struct df_config *c) {
        if (!c)
                return NULL;
        free_strv(c->files, c->n_files);
        free(c->default_governor);
        free_strv(c->allow_groups, c->n_allow_groups);
        free_strv(c->request_groups, c->n_request_groups);
        for (size_t i = 0; i < c->n_devices; i++)
                device_done(&c->devices[i]);
        free(c->devices);
        free(c);
        return NULL;
}

struct source {
        const char *path;
        bool missing_ok;
        const char *text; /* parsed from memory when set */
        size_t size;
};

static int
load(const struct source *sources, size_t n, const char *dropin_dir, struct df_config **ret,
     struct df_config_errors *errors) {
        struct df_config_errors scratch = {};
        struct parser p = { .errors = errors ?: &scratch };
        int r = 0;

        p.config = config_new();
        if (!p.config)
                return -ENOMEM;
        for (size_t i = 0; i < n && !p.oom; i++)
                if (sources[i].text)
                        parse_source(&p, sources[i].path, NULL, sources[i].text, sources[i].size);
                else
                        parse_file(&p, sources[i].path, sources[i].missing_ok);
        if (dropin_dir && !p.oom)
                parse_dropins(&p, dropin_dir);
        if (!p.oom)
                validate(&p);

        free(p.key);
        free(p.value);
        free(p.device_bad);
        df_config_errors_done(&scratch);
        if (p.oom)
                r = -ENOMEM;
        else if (p.n_errors > 0)
                r = -EINVAL;
        if (r < 0) {
                df_config_free(p.config);
                return r;
        }
        *ret = p.config;
        return 0;
}

int df_config_load(
        const char *file, const char *dropin_dir, struct df_config **ret, struct df_config_errors *errors) {
        struct source s = { .path = file, .missing_ok = true };

        if (!ret)
                return -EINVAL;
        return load(&s, file ? 1 : 0, dropin_dir, ret, errors);
}

int df_config_load_files(
        const char *const *files, size_t n_files, struct df_config **ret, struct df_config_errors *errors) {
        _cleanup_free_ struct source *s = NULL;

        if (!ret || (n_files > 0 && !files))
                return -EINVAL;
        s = calloc(n_files ?: 1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < n_files; i++) {
                if (!files[i])
                        return -EINVAL;
                s[i] = (struct source){ .path = files[i] };
        }
        return load(s, n_files, NULL, ret, errors);
}

int df_config_load_string(
        const char *name, const char *text, size_t size, struct df_config **ret,
        struct df_config_errors *errors) {
        struct source s = { .path = name ?: "<string>", .text = text ?: "", .size = text ? size : 0 };

        if (!ret)
                return -EINVAL;
        return load(&s, 1, NULL, ret, errors);
}

/* --- the model after defaults ----------------------------------------------------------------- */

const struct df_config_device *df_config_find_device(const struct df_config *c, const char *name) {
        if (!c || !name)
                return NULL;
        for (size_t i = 0; i < c->n_devices; i++)
                if (streq(c->devices[i].name, name))
                        return &c->devices[i];
        return NULL;
}

enum df_mode df_config_device_mode(const struct df_config *c, const struct df_config_device *d) {
        return d->mode_set ? d->mode : c->default_mode;
}

const char *df_config_device_governor(const struct df_config *c, const struct df_config_device *d) {
        if (df_config_device_mode(c, d) == DF_MODE_GOVERN)
                return d->governor ?: c->default_governor;
        return d->governor;
}

uint64_t df_config_device_polling(const struct df_config *c, const struct df_config_device *d) {
        return d->polling_set ? d->polling_usec : c->polling_usec;
}

uint64_t df_config_device_opp_step(const struct df_config_device *d) {
        return d->opp_step_set ? d->opp_step : DF_CONFIG_DEFAULT_OPP_STEP;
}

bool df_config_path_is_cpufreq(const char *path) {
        return path && startswith(path, "/sys/devices/system/cpu/");
}
