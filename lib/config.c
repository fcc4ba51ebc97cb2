/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration: devfreqd.conf and its drop-ins loaded into one model (the public entry points),
 * errors as "file:line: what", and the model's values after defaults. The reader, the keys and the
 * validation of the merged whole are config-reader.c, config-keys.c and config-validate.c. */

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "config.h"
#include "macro.h"
#include "strv.h"

bool config_is_space(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool config_startswith(const char *s, const char *prefix) {
        assert(s);
        assert(prefix);

        return strneq(s, prefix, strlen(prefix));
}

void config_free_strv(char **v, size_t n) {
        strv_free(v, n);
}

/* --- errors ----------------------------------------------------------------------------------- */

int df_config_errors_add(struct df_config_errors *e, const struct df_location *loc, const char *fmt, ...) {
        char message[512];
        char *text = NULL;
        va_list ap;

        assert(e);

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);
        if (e->n >= DF_CONFIG_ERRORS_MAX) {
                e->dropped++;
                return -EINVAL;
        }
        if (loc && loc->file) {
                if (asprintf(&text, "%s:%u: %s", loc->file, loc->line, message) < 0)
                        text = NULL;
        } else
                text = strdup(message);
        if (!text) {
                e->dropped++;
                return -EINVAL;
        }
        e->messages[e->n++] = text;
        return -EINVAL;
}

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

/* Each reporter returns -EINVAL, so call sites read "return config_refuse(p, …);". */

/* At a location of the model (validation). */
_printf_(3, 4) int config_report_at(struct parser *p, const struct df_location *loc, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vreport(p, loc->file, loc->line, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* At a line of the file being read (0: the file as a whole). */
_printf_(3, 4) int config_report_line(struct parser *p, unsigned line, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vreport(p, p->file, line, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* At the assignment being applied; the device it configures is then not validated further. */
_printf_(2, 3) int config_refuse(struct parser *p, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vreport(p, p->file, p->key_line, fmt, ap);
        va_end(ap);
        if (p->section == SECTION_DEVICE)
                p->device_bad[p->device] = true;
        else if (p->section == SECTION_THERMAL)
                p->thermal_bad[p->thermal] = true;
        return -EINVAL;
}

int config_oom(struct parser *p) {
        assert(p);

        p->oom = true;
        return -ENOMEM;
}

struct df_location config_here(const struct parser *p) {
        assert(p);

        return (struct df_location){ .file = p->file, .line = p->key_line };
}

/* Whether a comes before b in reading order. */
bool config_loc_before(const struct df_config *c, const struct df_location *a, const struct df_location *b) {
        size_t ia = 0, ib = 0;

        assert(c);
        assert(a);
        assert(b);

        for (size_t i = 0; i < c->n_files; i++) {
                if (c->files[i] == a->file)
                        ia = i;
                if (c->files[i] == b->file)
                        ib = i;
        }
        return ia != ib ? ia < ib : a->line < b->line;
}

/* --- loading ---------------------------------------------------------------------------------- */

/* The built-in value of each [daemon] key: a new model starts from them, and an empty value in
 * [daemon] goes back to one. The lists and default-profile start empty. */
const struct df_config config_daemon_defaults = {
        .autodiscover = true,
        .default_mode = DF_MODE_CLAMP,
        .polling_usec = DF_CONFIG_DEFAULT_POLLING_USEC,
        .max_requests_per_client = 64,
        .max_requests_per_user = 256,
        .max_requests = 4096,
        .max_clients = 256,
        .max_pending_checks_per_user = 8,
        .follow_power_profiles = true,
};
const char config_default_governor[] = "simple_ondemand";

struct df_config *config_new(void) {
        struct df_config *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        *c = config_daemon_defaults;
        c->default_governor = strdup(config_default_governor);
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

void config_profile_done(struct df_config_profile *pr) {
        assert(pr);

        for (size_t i = 0; i < pr->n_lines; i++) {
                free(pr->lines[i].device);
                free(pr->lines[i].key);
                free(pr->lines[i].value);
        }
        free(pr->lines);
        free(pr->name);
}

void config_thermal_done(struct df_config_thermal *t) {
        assert(t);

        free(t->name);
        free(t->zone);
        strv_free(t->devices, t->n_devices);
}

struct df_config *df_config_free(struct df_config *c) {
        if (!c)
                return NULL;
        config_free_strv(c->files, c->n_files);
        free(c->default_governor);
        config_free_strv(c->allow_groups, c->n_allow_groups);
        config_free_strv(c->request_groups, c->n_request_groups);
        config_free_strv(c->profile_groups, c->n_profile_groups);
        free(c->default_profile);
        for (size_t i = 0; i < c->n_profiles; i++)
                config_profile_done(&c->profiles[i]);
        free(c->profiles);
        for (size_t i = 0; i < c->n_thermals; i++)
                config_thermal_done(&c->thermals[i]);
        free(c->thermals);
        for (size_t i = 0; i < c->n_devices; i++)
                device_done(&c->devices[i]);
        free(c->devices);
        free(c);
        return NULL;
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

const struct df_config_profile *df_config_find_profile(const struct df_config *c, const char *name) {
        if (!c || !name)
                return NULL;
        for (size_t i = 0; i < c->n_profiles; i++)
                if (streq(c->profiles[i].name, name))
                        return &c->profiles[i];
        return NULL;
}

enum df_mode df_config_device_mode(const struct df_config *c, const struct df_config_device *d) {
        assert(c);
        assert(d);

        return d->mode_set ? d->mode : c->default_mode;
}

const char *df_config_device_governor(const struct df_config *c, const struct df_config_device *d) {
        if (df_config_device_mode(c, d) == DF_MODE_GOVERN)
                return d->governor ?: c->default_governor;
        return d->governor;
}

uint64_t df_config_device_polling(const struct df_config *c, const struct df_config_device *d) {
        assert(c);
        assert(d);

        return d->polling_set ? d->polling_usec : c->polling_usec;
}

uint64_t df_config_device_opp_step(const struct df_config_device *d) {
        assert(d);

        return d->opp_step_set ? d->opp_step : DF_CONFIG_DEFAULT_OPP_STEP;
}

bool df_config_path_is_cpufreq(const char *path) {
        return path && config_startswith(path, "/sys/devices/system/cpu/");
}

enum df_kind df_config_path_kind(const char *path) {
        const char *slash;

        if (df_config_path_is_cpufreq(path))
                return DF_KIND_CPUFREQ;
        if (!path)
                return _DF_KIND_INVALID;
        slash = strrchr(path, '/');
        if (config_startswith(path, "/sys/class/devfreq/") ||
            (slash && slash - path >= 8 && strneq(slash - 8, "/devfreq", 8)))
                return DF_KIND_DEVFREQ;
        return _DF_KIND_INVALID;
}
